/** A key store or trust store that cannot be used; the message says what to do about it. */
export class KeyStoreError extends Error {
  readonly code = 'SLUICE_KEYSTORE';
  constructor(readonly file: string, message: string) {
    super(`${file}: ${message}`);
    this.name = 'KeyStoreError';
  }
}

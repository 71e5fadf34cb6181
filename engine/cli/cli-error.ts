/** A mistake in how the CLI was called or configured: reported in one line, never with a stack trace. */
export class CliUsageError extends Error {
  readonly code = 'SLUICE_USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

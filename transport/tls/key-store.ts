import fs from 'node:fs';
import crypto from 'node:crypto';
import { KeyStoreError } from './tls-errors.js';
import { openssl } from './openssl.js';

export type KeyStoreType = 'PKCS12' | 'PEM' | 'JKS';

export interface KeyStoreSpec {
  readonly file: string;
  readonly type: string | undefined;
  readonly password: string | undefined;
  readonly keyPassword: string | undefined;
}

/** A private key and its certificate chain, PEM-encoded. The key is held in memory only. */
export interface KeyMaterial {
  readonly keyPem: string;
  /** The leaf certificate first, then any intermediates. */
  readonly certChainPem: string;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]+?-----END \1-----/g;

function blocks(text: string): { kind: string; pem: string }[] {
  return [...text.matchAll(PEM_BLOCK)].map((m) => ({ kind: m[1]!, pem: m[0] }));
}

/** The type as configured, else guessed from the file name and the first bytes. */
export function storeType(spec: KeyStoreSpec, head: Buffer): KeyStoreType {
  const t = spec.type?.toUpperCase();
  if (t === 'PKCS12' || t === 'PEM' || t === 'JKS') {
    // A file typed JKS may in fact be PKCS12 (keytool's default since Java 9): trust the bytes.
    if (t === 'JKS' && head.readUInt32BE(0) !== 0xfeedfeed) return 'PKCS12';
    return t;
  }
  if (head.length >= 4 && head.readUInt32BE(0) === 0xfeedfeed) return 'JKS';
  if (head.toString('latin1', 0, 11) === '-----BEGIN ') return 'PEM';
  return 'PKCS12';
}

function jksError(file: string): KeyStoreError {
  return new KeyStoreError(file, 'JKS key stores cannot be read by Sluice. Convert it to PKCS12 and point the key to the new file:\n'
    + `  keytool -importkeystore -srckeystore ${file} -srcstoretype JKS -destkeystore ${file.replace(/\.jks$/i, '')}.p12 -deststoretype PKCS12\n`
    + '  then set key_store.type = "PKCS12" (or use a PEM file with the key and the certificate chain, type = "PEM")');
}

function readFile(file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new KeyStoreError(file, e.code === 'ENOENT' ? 'file not found' : e.code === 'EACCES' ? 'permission denied' : e.message);
  }
}

/** Reads a private key and its certificates from a PKCS12 or PEM key store. */
export function loadKeyMaterial(spec: KeyStoreSpec): KeyMaterial {
  const data = readFile(spec.file);
  const type = storeType(spec, data);
  if (type === 'JKS') throw jksError(spec.file);
  let text: string;
  if (type === 'PEM') {
    text = data.toString('utf8');
  } else {
    const secrets = { SLUICE_STORE_PASS: spec.password ?? '' };
    const args = ['pkcs12', '-in', spec.file, '-passin', 'env:SLUICE_STORE_PASS', '-nodes'];
    try {
      text = openssl(args, spec.file, secrets).toString('utf8');
    } catch (err) {
      // Stores written by older keytool/openssl use RC2/3DES, which OpenSSL 3 reads only in legacy mode.
      if (!(err instanceof KeyStoreError) || !/unsupported|legacy|RC2|algorithm/i.test(err.message)) throw err;
      text = openssl([...args, '-legacy'], spec.file, secrets).toString('utf8');
    }
  }
  const found = blocks(text);
  const keyBlock = found.find((b) => b.kind.endsWith('PRIVATE KEY'));
  const certs = found.filter((b) => b.kind === 'CERTIFICATE');
  if (!keyBlock) throw new KeyStoreError(spec.file, 'no private key in the key store');
  if (certs.length === 0) throw new KeyStoreError(spec.file, 'no certificate in the key store');
  let key: crypto.KeyObject;
  try {
    key = crypto.createPrivateKey({ key: keyBlock.pem, passphrase: spec.keyPassword ?? spec.password });
  } catch (err) {
    throw new KeyStoreError(spec.file, `the private key cannot be read: ${(err as Error).message} (check key_password)`);
  }
  // Put the certificate that matches the key first: PKCS12 exports list CA certificates in any order.
  const pub = crypto.createPublicKey(key).export({ type: 'spki', format: 'der' });
  const leafIndex = certs.findIndex((c) => {
    try { return new crypto.X509Certificate(c.pem).publicKey.export({ type: 'spki', format: 'der' }).equals(pub); } catch { return false; }
  });
  if (leafIndex < 0) throw new KeyStoreError(spec.file, 'no certificate in the key store matches its private key');
  const ordered = [certs[leafIndex]!, ...certs.filter((_, i) => i !== leafIndex)];
  return {
    keyPem: key.export({ type: 'pkcs8', format: 'pem' }) as string,
    certChainPem: ordered.map((c) => c.pem).join('\n') + '\n',
  };
}

/** CA certificates from a trust store (PEM bundle or PKCS12), for verifying peers. */
export function loadTrustedCertificates(spec: KeyStoreSpec): string[] {
  const data = readFile(spec.file);
  const type = storeType(spec, data);
  if (type === 'JKS') throw jksError(spec.file);
  const text = type === 'PEM'
    ? data.toString('utf8')
    : openssl(['pkcs12', '-in', spec.file, '-passin', 'env:SLUICE_STORE_PASS', '-nokeys'], spec.file, { SLUICE_STORE_PASS: spec.password ?? '' }).toString('utf8');
  const certs = blocks(text).filter((b) => b.kind === 'CERTIFICATE').map((b) => b.pem);
  if (certs.length === 0) throw new KeyStoreError(spec.file, 'no certificate in the trust store');
  return certs;
}

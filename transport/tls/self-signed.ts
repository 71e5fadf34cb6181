import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openssl } from './openssl.js';

/**
 * Writes a self-signed PKCS12 key store (RSA 2048, SHA-256, SAN for localhost and the host name), so that
 * the HTTPS ports work on a fresh home. Operators replace it with their own store.
 */
export function generateSelfSignedStore(file: string, password: string, hostname: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-tls-'));
  try {
    const keyFile = path.join(tmp, 'key.pem');
    const certFile = path.join(tmp, 'cert.pem');
    const san = [...new Set(['localhost', hostname])].map((h) => (/^[\d.]+$/.test(h) ? `IP:${h}` : `DNS:${h}`));
    san.push('IP:127.0.0.1');
    openssl(['req', '-x509', '-newkey', 'rsa:2048', '-sha256', '-days', '825', '-nodes',
      '-keyout', keyFile, '-out', certFile, '-subj', `/CN=${hostname}/O=Sluice self-signed`,
      '-addext', `subjectAltName=${[...new Set(san)].join(',')}`], file);
    openssl(['pkcs12', '-export', '-inkey', keyFile, '-in', certFile, '-name', 'sluice',
      '-out', file, '-passout', 'env:SLUICE_STORE_PASS'], file, { SLUICE_STORE_PASS: password });
    fs.chmodSync(file, 0o600);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

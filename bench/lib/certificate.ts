import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A key and certificate for localhost / 127.0.0.1 made by openssl in `dir` (one PEM with both, for a
 * control plane's key store), and the certificate alone, for its clients to trust.
 */
export function selfSignedCertificate(dir: string): { keyStore: string; trust: string } {
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { stdio: 'ignore' });
  const keyStore = path.join(dir, 'cp.pem');
  fs.writeFileSync(keyStore, fs.readFileSync(key, 'utf8') + fs.readFileSync(cert, 'utf8'));
  return { keyStore, trust: cert };
}


import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { spawnTracked, tmpDir, waitPort } from '../lib/products.js';
import { NEVER_TRIPPING_LIMIT, trackedPeer, type Peer } from './peer.js';

/**
 * HAProxy (Debian's 2.6) with `threads` threads and two frontends on one backend with connection reuse:
 *
 *   pass     plain pass-through
 *   secured  the same secured work as Sluice's secured API, in C: the bearer token from `http_auth_bearer`,
 *            its header's alg must be RS256, `jwt_verify` against the gateway's signing key (a PEM public
 *            key, from its JWKS), `exp` present and not past, then the call tracked in a stick-table per
 *            client (`azp`) and refused with 429 above `rateLimit` calls a minute (default: a rate the
 *            bench never reaches; tests set a small one). HAProxy 2.6 keeps no cache of verified
 *            tokens: every call verifies the RSA signature.
 *
 * No log lines (no `log` directive), as nginx's `access_log off`.
 */
export interface HaproxyOptions { threads: number; passPort: number; securedPort: number; upstream: number; publicKeyPem: string; rateLimit?: number }

export function haproxyConfig(o: HaproxyOptions): string {
  return `global
  nbthread ${o.threads}
  maxconn 8000
defaults
  mode http
  maxconn 8000
  timeout connect 5s
  timeout client 60s
  timeout server 60s
backend be
  http-reuse always
  server s1 127.0.0.1:${o.upstream} maxconn 4000
frontend pass
  bind 127.0.0.1:${o.passPort}
  default_backend be
frontend secured
  bind 127.0.0.1:${o.securedPort}
  stick-table type string len 64 size 100k expire 60s store http_req_rate(60s)
  http-request set-var(txn.bearer) http_auth_bearer
  http-request deny deny_status 401 unless { var(txn.bearer) -m found }
  http-request set-var(txn.alg) var(txn.bearer),jwt_header_query('$.alg')
  http-request deny deny_status 401 unless { var(txn.alg) -m str RS256 }
  http-request deny deny_status 401 unless { var(txn.bearer),jwt_verify(txn.alg,"${o.publicKeyPem}") -m int 1 }
  http-request set-var(txn.exp) var(txn.bearer),jwt_payload_query('$.exp','int')
  http-request deny deny_status 401 unless { var(txn.exp) -m found }
  http-request deny deny_status 401 if { date,neg,add(txn.exp) lt 0 }
  http-request set-var(txn.client) var(txn.bearer),jwt_payload_query('$.azp')
  http-request track-sc0 var(txn.client)
  http-request deny deny_status 429 if { sc_http_req_rate(0) gt ${o.rateLimit ?? NEVER_TRIPPING_LIMIT} }
  default_backend be
`;
}

/** HAProxy as a peer; its configuration is checked with `haproxy -c` first, so a mistake says what it is. */
export async function startHaproxy(o: HaproxyOptions): Promise<Peer> {
  const dir = tmpDir('sluice-bench-haproxy-');
  const cfg = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(cfg, haproxyConfig(o));
  execFileSync('haproxy', ['-c', '-q', '-f', cfg], { stdio: ['ignore', 'ignore', 'pipe'] });
  const c = spawnTracked('haproxy', ['-db', '-f', cfg], { log: path.join(dir, 'haproxy.log') });
  await waitPort(o.passPort);
  await waitPort(o.securedPort);
  return trackedPeer('haproxy', c, `http://127.0.0.1:${o.passPort}`, `http://127.0.0.1:${o.securedPort}`);
}

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Agent, request } from 'undici';
import { benchApiToml, startSluice, stopTracked } from '../lib/products.js';
import { NEVER_TRIPPING_LIMIT, type Peer } from './peer.js';

/**
 * Sluice as the bench runs it: the default home (access log on unless asked otherwise) with the bench's
 * APIs, policies and application:
 *
 *   /open/1.0.0        pass-through, no authentication
 *   /throttled/1.0.0   the secured path: JWT (the token cache hit) + subscription + throttling, counted against
 *                      real subscription, application and API policies (NEVER_TRIPPING_LIMIT a minute each)
 *   /secure/1.0.0      JWT + subscription (Unlimited): authentication alone
 *   /mediated/1.0.0    no authentication, a small in-sequence (a property and a header)
 *   /echo/1.0.0        JWT + subscription, POST to the echo backend: the reference system's HTTPS scenario
 */
export interface SluicePeer extends Peer {
  readonly jwtOnly: string;
  readonly mediated: string;
  /** https://127.0.0.1:<8243 + offset>/echo/1.0.0 */
  readonly httpsEcho: string;
  /** An access token of the bench application (client credentials), valid an hour. */
  readonly token: string;
  /** The gateway's token signing key from its JWKS, as a PEM public key file (for HAProxy and fastify). */
  readonly publicKeyPem: string;
  readonly home: string;
}

export function sluiceBenchFiles(backend: string, echoBackend: string): Record<string, string> {
  const api = (name: string, context: string, auth: string, extra = '', url = backend, verbs = ['GET', 'POST']): string =>
    benchApiToml({ name, context, backend: url, verbs, auth, extra });
  const secured = 'Application & Application User';
  return {
    'repository/deployment/server/apis/bench-open.toml': api('BenchOpen', '/open', 'None'),
    'repository/deployment/server/apis/bench-secure.toml': api('BenchSecure', '/secure', secured),
    'repository/deployment/server/apis/bench-throttled.toml': api('BenchThrottled', '/throttled', secured).replace('throttling_policy = "Unlimited"\n', 'throttling_policy = "BenchAdvanced"\n'),
    'repository/deployment/server/apis/bench-mediated.toml': api('BenchMediated', '/mediated', 'None', 'in_sequence = "bench_in"'),
    'repository/deployment/server/apis/bench-echo.toml': api('BenchEcho', '/echo', secured, '', echoBackend, ['POST']),
    'repository/deployment/server/synapse-configs/default/sequences/bench_in.xml': `<sequence xmlns="http://ws.apache.org/ns/synapse" name="bench_in">
  <property name="bench" value="yes"/>
  <header name="X-Bench" value="in-sequence" scope="transport"/>
</sequence>`,
    'repository/deployment/server/policies/bench.toml': ['subscription', 'application', 'advanced'].map((kind) => `[[${kind}]]
name = "Bench${kind === 'subscription' ? 'Gold' : kind === 'application' ? 'App' : 'Advanced'}"
requests = ${NEVER_TRIPPING_LIMIT}
unit_time = 1
time_unit = "min"
${kind === 'subscription' ? 'stop_on_quota_reach = true\n' : ''}`).join(''),
    'repository/deployment/server/applications/bench-app.toml': `name = "BenchApp"
owner = "admin"
throttling_policy = "BenchApp"
token_type = "JWT"
[[keys]]
key_type = "PRODUCTION"
client_id = "bench-client"
client_secret = "bench-secret"
grant_types = ["client_credentials"]
${[['BenchSecure', 'Unlimited'], ['BenchThrottled', 'BenchGold'], ['BenchEcho', 'Unlimited']].map(([api, tier]) => `[[subscriptions]]
api = "${api}:1.0.0"
throttling_policy = "${tier}"
state = "UNBLOCKED"
`).join('')}`,
  };
}

async function fetchJson(url: string, o: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {}): Promise<unknown> {
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
  try {
    const res = await request(url, { method: o.method ?? 'GET', dispatcher, ...(o.headers ? { headers: o.headers } : {}), ...(o.body ? { body: o.body } : {}) });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${text.slice(0, 200)}`);
    return JSON.parse(text);
  } finally {
    await dispatcher.close();
  }
}

/** An access token of the bench application (client credentials) from the token endpoint at `km` (https://host:port). */
export async function benchToken(km: string): Promise<string> {
  const t = await fetchJson(`${km}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic ' + Buffer.from('bench-client:bench-secret').toString('base64') },
    body: 'grant_type=client_credentials',
  }) as { access_token?: string };
  if (!t.access_token) throw new Error('the benchmark application got no token');
  return t.access_token;
}

export async function startSluicePeer(o: { offset: number; ioThreads: number; backend: string; echoBackend: string; accessLog: boolean }): Promise<SluicePeer> {
  const s = await startSluice({ offset: o.offset, ioThreads: o.ioThreads, files: sluiceBenchFiles(o.backend, o.echoBackend), conf: { http_access_log: { enabled: o.accessLog } } });
  const km = `https://127.0.0.1:${s.servletHttps}`;
  const token = await benchToken(km);
  // The signing key as the gateway publishes it: the one whose kid the token names.
  const kid = (JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { kid?: string }).kid;
  const jwks = await fetchJson(`${km}/oauth2/jwks`) as { keys?: (crypto.JsonWebKey & { kid?: string })[] };
  const jwk = jwks.keys?.find((k) => k.kid === kid);
  if (!jwk) throw new Error(`the JWKS has no key ${kid}`);
  const publicKeyPem = path.join(s.home, 'bench-signing-key.pem');
  fs.writeFileSync(publicKeyPem, crypto.createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' }));
  const base = `http://127.0.0.1:${s.http}`;
  return {
    id: 'sluice', pids: [s.proc.pid!], home: s.home, token, publicKeyPem,
    passThrough: `${base}/open/1.0.0`, secured: `${base}/throttled/1.0.0`, jwtOnly: `${base}/secure/1.0.0`, mediated: `${base}/mediated/1.0.0`,
    httpsEcho: `https://127.0.0.1:${8243 + o.offset}/echo/1.0.0`,
    stop: () => stopTracked(s.proc),
  };
}

/**
 * An API's `security` list: API keys (signed by the key manager, checked in the gateway) and HTTP Basic
 * against the user store, with the attack corpus test/fixtures/identity/api-key-attacks.json. Before the
 * schemes existed every API key case answered 900902 (no Authorization header) and Basic 900901.
 */
import fs from 'node:fs';
import crypto from 'node:crypto';
import t from 'tap';
import { SignJWT } from 'jose';
import { startSecured, basic } from '../helpers/secured.js';
import { recordingBackend } from '../helpers/recording-backend.js';
import { apiHeadToml } from '../helpers/home.js';
import { faultOf, request as gwRequest } from '../helpers/backends.js';
import { request } from '../fixtures/keymanager-harness.js';
import { USERS } from './fixtures.js';

interface Corpus {
  apiKey: { name: string; source: string; make: string; expect: number }[];
  basic: { name: string; source: string; user?: string; password?: string; raw?: string | null; expect: number }[];
}
const corpus = JSON.parse(fs.readFileSync(new URL('../fixtures/identity/api-key-attacks.json', import.meta.url), 'utf8')) as Corpus;

const app = (name: string, id: string, subscribe: boolean): string => `name = "${name}"
owner = "admin"
token_type = "JWT"
[[keys]]
key_type = "PRODUCTION"
client_id = "${id}"
client_secret = "${id}-secret"
grant_types = ["client_credentials"]
${subscribe ? `[[subscriptions]]
api = "Keyed:1.0.0"
throttling_policy = "Unlimited"
state = "UNBLOCKED"
` : ''}`;


t.test('API keys and Basic auth through the gateway', async (t) => {
  const backend = await recordingBackend(t);
  const resources = (auth = 'Application & Application User') => `[[resources]]
verb = "GET"
uri_template = "/write"
auth_type = "${auth}"
scopes = ["menu:write"]
[[resources]]
verb = "GET"
uri_template = "/*"
auth_type = "${auth}"
`;
  const keyed = `${apiHeadToml({ name: 'Keyed', context: '/keyed', production: backend.url, extra: 'security = ["api_key", "oauth2"]' })}${resources()}`;
  const basicApi = `${apiHeadToml({ name: 'BasicApi', context: '/basic', production: backend.url, extra: 'security = ["basic_auth"]' })}${resources()}`;
  const s = await startSecured(t, {
    apis: { keyed, basic: basicApi },
    apps: { keyapp: app('KeyApp', 'key-client', true), other: app('OtherKeyApp', 'other-key-client', false) },
    files: { 'repository/deployment/server/users/people.toml': USERS },
  });
  const admin = (method: string, p: string, body?: unknown) => request(s.kmUrl(`/api/am/admin/v1${p}`), {
    method, headers: { authorization: basic('admin', 'admin'), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const gen = async (appName: string, validityPeriod?: number): Promise<string> => {
    const r = await admin('POST', `/applications/${appName}/api-keys/PRODUCTION/generate`, validityPeriod === undefined ? undefined : { validityPeriod });
    t.equal(r.status, 200, r.text);
    return r.json.apikey as string;
  };
  const key = await gen('KeyApp');
  const payload = JSON.parse(Buffer.from(key.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
  t.equal(payload['token_type'], 'apiKey');
  t.equal(payload['exp'], undefined, 'no validity period: no expiry');

  const pub = crypto.createPublicKey(s.kmPublicKeyPem());
  const make: Record<string, () => Promise<{ headers: Record<string, string>; query?: string }>> = {
    valid: async () => ({ headers: { apikey: key } }),
    'valid-query': async () => ({ headers: {}, query: `apikey=${encodeURIComponent(key)}&keep=1` }),
    random: async () => ({ headers: { apikey: crypto.randomBytes(32).toString('base64url') } }),
    'random-jwt': async () => ({ headers: { apikey: [1, 2, 3].map(() => crypto.randomBytes(24).toString('base64url')).join('.') } }),
    truncated: async () => ({ headers: { apikey: key.split('.').slice(0, 2).join('.') + '.' } }),
    'tampered-payload': async () => {
      const p = { ...payload, application: { name: 'OtherKeyApp', owner: 'admin', tier: 'Unlimited' } };
      const parts = key.split('.');
      return { headers: { apikey: `${parts[0]}.${Buffer.from(JSON.stringify(p)).toString('base64url')}.${parts[2]}` } };
    },
    'alg-none': async () => ({ headers: { apikey: `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${key.split('.')[1]}.` } }),
    'hs256-public-key': async () => ({ headers: { apikey: await new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).sign(pub.export({ type: 'spki', format: 'der' })) } }),
    expired: async () => ({ headers: { apikey: await s.forge({ ...payload, jti: crypto.randomUUID(), exp: Math.floor(Date.now() / 1000) - 60 }, { typ: 'JWT' }) } }),
    revoked: async () => {
      const k2 = await gen('KeyApp', 3600);
      t.equal((await gwRequest(s.url('/keyed/1.0.0/x'), { headers: { apikey: k2 } })).status, 200, 'the key works before its revocation');
      const r = await admin('POST', '/applications/KeyApp/api-keys/PRODUCTION/revoke', { apikey: k2 });
      t.equal(r.status, 200, r.text);
      return { headers: { apikey: k2 } };
    },
    'access-token-as-key': async () => ({ headers: { apikey: (await s.token('key-client', 'key-client-secret')).accessToken! } }),
    'unknown-application': async () => ({ headers: { apikey: await s.forge({ ...payload, jti: crypto.randomUUID(), application: { name: 'Ghost', owner: 'admin', tier: 'Unlimited' } }, { typ: 'JWT' }) } }),
    unsubscribed: async () => ({ headers: { apikey: await gen('OtherKeyApp') } }),
    huge: async () => ({ headers: { apikey: 'a'.repeat(9000) } }),
    'key-as-bearer': async () => ({ headers: { authorization: `Bearer ${key}` } }),
  };

  for (const c of corpus.apiKey) {
    const label = `${c.name} [${c.source}]`;
    const m = await make[c.make]!();
    backend.reset();
    const r = await gwRequest(s.url(`/keyed/1.0.0/menu${m.query ? `?${m.query}` : ''}`), { headers: m.headers });
    if (c.expect === 0) {
      t.equal(r.status, 200, `${label}: ${r.text}`);
      t.equal(backend.seen.length, 1, `${label}: reached the backend`);
      t.equal(backend.seen[0]?.headers['apikey'], undefined, `${label}: the key is not forwarded`);
      t.notMatch(backend.seen[0]?.line ?? '', /apikey/, `${label}: not in the query either`);
      if (m.query) t.match(backend.seen[0]?.line ?? '', /\?keep=1 /, `${label}: the other parameters are kept`);
    } else {
      t.equal(faultOf(r)?.code, c.expect, `${label}: ${r.text}`);
      t.equal(backend.seen.length, 0, `${label}: nothing reached the backend`);
    }
  }
  const scoped = await gwRequest(s.url('/keyed/1.0.0/write'), { headers: { apikey: key } });
  t.equal(faultOf(scoped)?.code, 900910, 'an API key carries no scopes');
  const bearer = await s.call('/keyed/1.0.0/x', (await s.token('key-client', 'key-client-secret')).accessToken!);
  t.equal(bearer.status, 200, 'oauth2 is in the list too');

  // A deleted application's keys die with it: a new application of the same name does not inherit them.
  const made = async (): Promise<void> => {
    t.equal((await admin('POST', '/applications', { name: 'Temp', keys: [{ key_type: 'PRODUCTION', grant_types: ['client_credentials'] }] })).status, 201);
    t.equal((await admin('POST', '/applications/Temp/subscriptions', { api: 'Keyed:1.0.0', throttling_policy: 'Unlimited' })).status, 201);
  };
  await made();
  const temp = await gen('Temp');
  t.equal((await gwRequest(s.url('/keyed/1.0.0/x'), { headers: { apikey: temp } })).status, 200);
  t.equal((await admin('DELETE', '/applications/Temp')).status, 204);
  await made();
  t.equal(faultOf(await gwRequest(s.url('/keyed/1.0.0/x'), { headers: { apikey: temp } }))?.code, 900901, 'the old key stays revoked');

  for (const c of corpus.basic) {
    const label = `${c.name} [${c.source}]`;
    const header = c.raw !== undefined ? c.raw : basic(c.user!, c.password!);
    backend.reset();
    const r = await gwRequest(s.url('/basic/1.0.0/menu'), { headers: header === null ? {} : { authorization: header } });
    if (c.expect === 0) {
      t.equal(r.status, 200, `${label}: ${r.text}`);
      t.equal(backend.seen[0]?.headers['authorization'], undefined, `${label}: the credentials are not forwarded`);
    } else {
      t.equal(faultOf(r)?.code, c.expect, `${label}: ${r.text}`);
      t.equal(backend.seen.length, 0, `${label}: nothing reached the backend`);
    }
  }
  const wrong = await gwRequest(s.url('/basic/1.0.0/menu'), { headers: { authorization: basic('alice', 'nope') } });
  const unknown = await gwRequest(s.url('/basic/1.0.0/menu'), { headers: { authorization: basic('mallory', 'nope') } });
  t.equal(wrong.text, unknown.text, 'an unknown user and a wrong password get the same body');
  t.equal((await gwRequest(s.url('/basic/1.0.0/write'), { headers: { authorization: basic('alice', 'alice-secret-1') } })).status, 200, 'alice\'s role binds menu:write');
  t.equal(faultOf(await gwRequest(s.url('/basic/1.0.0/write'), { headers: { authorization: basic('bob', 'bob-secret-1') } }))?.code, 900910, 'bob has no role with menu:write');

  // Password guessing through an API's Basic auth backs off like the token endpoint (5 free failures, then
  // 1 s doubled): carol's right password is refused while the back-off lasts, and nothing reaches the
  // backend. (carol has never been served, so no remembered success answers for the key manager.)
  t.equal((await admin('POST', '/users', { username: 'carol', password: 'carol-secret-1', roles: [] })).status, 201, 'carol is created');
  for (let i = 0; i < 6; i++) await gwRequest(s.url('/basic/1.0.0/menu'), { headers: { authorization: basic('carol', `guess-${i}`) } });
  backend.reset();
  const backedOff = await gwRequest(s.url('/basic/1.0.0/menu'), { headers: { authorization: basic('carol', 'carol-secret-1') } });
  t.equal(faultOf(backedOff)?.code, 900911, `guessing carol's password: backed off (${backedOff.text})`);
  t.ok(Number(backedOff.headers['retry-after']) >= 1, `Retry-After: ${backedOff.headers['retry-after']}`);
  t.equal(backend.seen.length, 0, 'nothing reached the backend');
  t.equal((await gwRequest(s.url('/basic/1.0.0/write'), { headers: { authorization: basic('alice', 'alice-secret-1') } })).status, 200, 'another user is served meanwhile');
  await new Promise((r) => setTimeout(r, 1100));
  t.equal((await gwRequest(s.url('/basic/1.0.0/menu'), { headers: { authorization: basic('carol', 'carol-secret-1') } })).status, 200, 'after the back-off carol is served');
});

import fs from 'node:fs';
import path from 'node:path';
import https from 'node:https';
import crypto from 'node:crypto';
import { SignJWT, calculateJwkThumbprint, exportJWK } from 'jose';
import { startSluice, type TestSluice } from './sluice.js';
import { API_DIR, apiHeadToml } from './home.js';
import { request as httpRequest, type ClientResponse } from './backends.js';

export const APPS_DIR = 'repository/deployment/server/applications';

export interface AppKey { readonly id: string; readonly secret: string; readonly keyType?: 'PRODUCTION' | 'SANDBOX'; readonly scopes?: string[]; readonly grants?: string[] }

/** An application file in the agreed format. */
export function appToml(o: { name: string; tier?: string; tokenType?: 'JWT' | 'OPAQUE'; keys: AppKey[]; subscriptions?: { api: string; tier?: string; state?: string }[] }): string {
  return `name = "${o.name}"
owner = "admin"
throttling_policy = "${o.tier ?? 'Unlimited'}"
token_type = "${o.tokenType ?? 'JWT'}"
${o.keys.map((k) => `[[keys]]
key_type = "${k.keyType ?? 'PRODUCTION'}"
client_id = "${k.id}"
client_secret = "${k.secret}"
grant_types = ${JSON.stringify(k.grants ?? ['client_credentials', 'password', 'refresh_token'])}
scopes = ${JSON.stringify(k.scopes ?? [])}
`).join('\n')}
${(o.subscriptions ?? []).map((s) => `[[subscriptions]]
api = "${s.api}"
throttling_policy = "${s.tier ?? 'Unlimited'}"
state = "${s.state ?? 'UNBLOCKED'}"
`).join('\n')}`;
}

/** A secured API: every verb on /*, a scoped /scoped resource, and OPTIONS without auth. */
export function securedApiToml(o: { name: string; context: string; production?: string; sandbox?: string; type?: string; authType?: string; extra?: string; scopes?: string[] }): string {
  const auth = o.authType ?? 'Application & Application User';
  return `${apiHeadToml(o)}[[resources]]
verb = "GET"
uri_template = "/scoped"
auth_type = "${auth}"
scopes = ${JSON.stringify(o.scopes ?? ['acme:admin'])}
${['GET', 'POST', 'PUT', 'DELETE'].map((v) => `[[resources]]
verb = "${v}"
uri_template = "/*"
auth_type = "${auth}"
`).join('\n')}`;
}

export interface SecuredSluice extends TestSluice {
  /** POST /oauth2/token on the servlet HTTPS port. */
  token(id: string, secret: string, form?: Record<string, string>): Promise<ClientResponse & { accessToken?: string }>;
  revoke(id: string, secret: string, token: string, hint?: string): Promise<ClientResponse>;
  call(path: string, token?: string, o?: { method?: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<ClientResponse>;
  /** Signs a token with the key manager's own signing key (for tokens it would never issue). */
  forge(claims: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
  kmUrl(p: string): string;
  /** The key manager's current public signing key, PEM. */
  kmPublicKeyPem(): string;
}

export function httpsPost(url: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<ClientResponse> {
  return new Promise((resolve) => {
    const body = new URLSearchParams(form).toString();
    const r = https.request(url, { method: 'POST', rejectUnauthorized: false, agent: false, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const b = Buffer.concat(chunks);
        let json: unknown;
        try { json = JSON.parse(b.toString()); } catch { json = undefined; }
        resolve({ status: res.statusCode!, headers: res.headers, rawHeaders: res.rawHeaders, body: b, text: b.toString(), json, aborted: false });
      });
    });
    r.on('error', (e) => resolve({ status: 0, headers: {}, rawHeaders: [], body: Buffer.alloc(0), text: '', json: undefined, aborted: true, error: e.message }));
    r.end(body);
  });
}

export const basic = (id: string, secret: string): string => 'Basic ' + Buffer.from(`${id}:${secret}`).toString('base64');

/** Sluice with the given APIs and applications, plus helpers to get tokens and call through the gateway. */
export async function startSecured(t: Tap.Test, o: { conf?: Record<string, unknown>; apis?: Record<string, string>; apps?: Record<string, string>; files?: Record<string, string> }): Promise<SecuredSluice> {
  const files: Record<string, string> = { ...(o.files ?? {}) };
  for (const [n, text] of Object.entries(o.apis ?? {})) files[`${API_DIR}/${n}.toml`] = text;
  for (const [n, text] of Object.entries(o.apps ?? {})) files[`${APPS_DIR}/${n}.toml`] = text;
  const s = await startSluice(t, { super_admin: { username: 'admin', password: 'admin' }, ...(o.conf ?? {}) }, files);
  const km = (p: string) => `https://127.0.0.1:${s.home.ports.servletHttps}${p}`;
  return {
    ...s,
    kmUrl: km,
    async token(id, secret, form = {}) {
      const r = await httpsPost(km('/oauth2/token'), { grant_type: 'client_credentials', ...form }, { authorization: basic(id, secret) });
      return { ...r, accessToken: (r.json as { access_token?: string } | undefined)?.access_token };
    },
    revoke(id, secret, token, hint) {
      return httpsPost(km('/oauth2/revoke'), { token, ...(hint ? { token_type_hint: hint } : {}) }, { authorization: basic(id, secret) });
    },
    call(p, token, co = {}) {
      return httpRequest(s.url(p), { method: co.method ?? 'GET', headers: { ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}), ...(co.headers ?? {}) }, ...(co.body !== undefined ? { body: co.body } : {}) });
    },
    kmPublicKeyPem() {
      const dir = path.join(s.home.dir, 'repository/resources/security');
      const file = fs.readdirSync(dir).find((f) => /^oauth-signing.*\.pem$/.test(f) && !f.includes('retired'))!;
      return crypto.createPublicKey(crypto.createPrivateKey(fs.readFileSync(path.join(dir, file)))).export({ type: 'spki', format: 'pem' }) as string;
    },
    async forge(claims, header = {}) {
      const dir = path.join(s.home.dir, 'repository/resources/security');
      const file = fs.readdirSync(dir).find((f) => /^oauth-signing.*\.pem$/.test(f) && !f.includes('retired'))!;
      const key = crypto.createPrivateKey(fs.readFileSync(path.join(dir, file)));
      const jwk = await exportJWK(crypto.createPublicKey(key));
      const kid = await calculateJwkThumbprint(jwk);
      return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid, typ: 'at+jwt', ...header }).sign(key);
    },
  };
}

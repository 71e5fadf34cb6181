/**
 * A browser stand-in for the authorization endpoint over real HTTPS: keeps the binding cookie, reads the
 * hidden fields of the sign-in and consent forms, posts them as a same-origin browser would (Origin and
 * Sec-Fetch-Site), and follows nothing by itself so that tests see every answer.
 */
import crypto from 'node:crypto';
import { request, type Res } from '../fixtures/keymanager-harness.js';

export interface AuthorizeParams {
  client_id: string;
  redirect_uri?: string;
  scope?: string;
  state?: string;
  nonce?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  response_type?: string;
  [k: string]: string | undefined;
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = crypto.randomBytes(32).toString('base64url');
  return { verifier, challenge: crypto.createHash('sha256').update(verifier).digest('base64url') };
}

/** The value of a hidden input in a page. */
export function hidden(html: string, name: string): string | undefined {
  const m = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(html);
  return m ? m[1]!.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&') : undefined;
}

export class BrowserSession {
  cookie: string | undefined;

  constructor(readonly base: string) {}

  private remember(res: Res): void {
    const set = res.headers['set-cookie'];
    for (const c of set ?? []) {
      const m = /^(sluice_authz=[^;]+)/.exec(c);
      if (m) this.cookie = m[1];
    }
  }

  async authorize(params: AuthorizeParams, raw?: string): Promise<Res> {
    const q = raw ?? new URLSearchParams(Object.entries('response_type' in params ? params : { response_type: 'code', ...params }).filter(([, v]) => v !== undefined) as [string, string][]).toString();
    const res = await request(`${this.base}/oauth2/authorize?${q}`, { headers: this.cookie ? { cookie: this.cookie } : {} });
    this.remember(res);
    return res;
  }

  /** GET an authorization URL built elsewhere (by an OIDC client library). */
  async open(url: string): Promise<Res> {
    const res = await request(url, { headers: this.cookie ? { cookie: this.cookie } : {} });
    this.remember(res);
    return res;
  }

  async post(fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Res> {
    const origin = this.base;
    const res = await request(`${this.base}/oauth2/authorize`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded', origin, 'sec-fetch-site': 'same-origin',
        ...(this.cookie ? { cookie: this.cookie } : {}), ...headers,
      },
      body: new URLSearchParams(fields).toString(),
    });
    this.remember(res);
    return res;
  }

  login(page: Res, username: string, password: string, headers: Record<string, string> = {}): Promise<Res> {
    return this.post({ step: 'login', request: hidden(page.text, 'request') ?? '', username, password }, headers);
  }

  consent(page: Res, decision: 'allow' | 'deny' = 'allow', headers: Record<string, string> = {}): Promise<Res> {
    return this.post({ step: 'consent', consent: hidden(page.text, 'consent') ?? '', decision }, headers);
  }

  /** GET, sign-in and Allow: the 303's Location parsed. */
  async flow(params: AuthorizeParams, username: string, password: string): Promise<{ location: URL; pages: Res[] }> {
    const page = await this.authorize(params);
    if (page.status !== 200) throw new Error(`authorize answered ${page.status}: ${page.headers.location ?? page.text.slice(0, 300)}`);
    const consent = await this.login(page, username, password);
    if (consent.status !== 200 || !hidden(consent.text, 'consent')) throw new Error(`sign-in answered ${consent.status}: ${consent.text.slice(0, 300)}`);
    const done = await this.consent(consent);
    if (done.status !== 303) throw new Error(`consent answered ${done.status}: ${done.text.slice(0, 300)}`);
    return { location: new URL(String(done.headers.location)), pages: [page, consent, done] };
  }
}

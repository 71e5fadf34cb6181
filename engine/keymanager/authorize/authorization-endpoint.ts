import type { AuthorizationView } from '../../../conf/views/identity.js';
import type { Logger } from '../../log/logger.js';
import { BodyMalformedError, UnsupportedMediaTypeError, type Reply, type ServletRequest } from '../../servlet/index.js';
import { UniqueViolationError, type ApimStore } from '../../store/index.js';
import type { Client, ClientDirectory } from '../directory.js';
import type { ScopePolicy } from '../scopes.js';
import { randomToken, tokenHash } from '../token-crypto.js';
import type { RoleScopes } from '../user-store/role-scopes.js';
import { login, type StoreUser, type UserStore } from '../user-store/user-store.js';
import type { AuthBackoff } from '../auth-backoff.js';
import { TooManyFailuresError } from '../errors.js';
import { validateAuthorizationRequest, withParameters, type AuthorizationRequest, type RedirectError } from './authorization-request.js';
import { consentPage, errorPage, loginPage } from './pages.js';
import type { StateSealer } from './sealed-state.js';

/** The browser binding cookie: HttpOnly, Secure, SameSite=Strict, on the authorization endpoint's path only. */
export const BINDING_COOKIE = 'sluice_authz';
const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;
const MAX_USERNAME = 256;
const MAX_PASSWORD = 1024;

/** What the login page's sealed state holds. */
interface LoginState { readonly r: AuthorizationRequest }
/** What the consent page's sealed state holds: the request, who signed in, when, and the consent's id. */
interface ConsentState { readonly r: AuthorizationRequest; readonly u: string; readonly t: number; readonly s: readonly string[]; readonly id: string }

export interface AuthorizationEndpointOptions {
  readonly clients: ClientDirectory;
  readonly users: UserStore;
  /** The back-off of failed logins, shared with the token endpoint and the admin API. */
  readonly backoff: AuthBackoff;
  readonly roleScopes: RoleScopes;
  readonly scopes: ScopePolicy;
  readonly store: ApimStore;
  readonly sealer: StateSealer;
  readonly view: AuthorizationView;
  readonly grantEnabled: boolean;
  /** The `iss` sent with every answer (RFC 9207), the issuer of the tokens. */
  readonly issuer: string;
  /** The path the endpoint is mounted at (the forms post there). */
  readonly path: string;
  readonly log: Logger;
  readonly now?: () => number;
}

/**
 * GET and POST /oauth2/authorize: the authorization code flow's user-facing half (RFC 6749 §4.1.1-4.1.2).
 *
 * GET validates the request (an unknown client or a redirect URI that is not exactly the registered one
 * is shown on a page, never redirected to) and answers the sign-in page. Its form posts back here with the
 * validated request sealed (sealed-state.ts) and bound to the browser's binding cookie; a correct user and
 * password answer the consent page, sealed the same way with the user; Allow creates a single-use code and
 * answers 303 to the redirect URI with code, state and iss; Deny answers access_denied there. Nothing is
 * kept on the server before the code: the pages can be loaded in a loop without filling a table.
 *
 * CSRF: a POST needs the binding cookie (SameSite=Strict, so a cross-site form does not carry it), the
 * sealed state made for that cookie, and, when the browser sends one, an Origin of this endpoint.
 */
export class AuthorizationEndpoint {
  private readonly now: () => number;

  constructor(private readonly o: AuthorizationEndpointOptions) {
    this.now = o.now ?? Date.now;
  }

  async get(req: ServletRequest): Promise<Reply> {
    if (!req.secure) return errorPage(403, 'invalid_request', 'Sign-in is served on the HTTPS port only: credentials never travel in clear.');
    const found = new Map<string, Client | undefined>();
    const v = await validateAuthorizationRequest(req.query, async (id) => {
      const c = await this.o.clients.find(id);
      found.set(id, c);
      return c;
    }, { required: this.o.view.pkceRequired, allowPlain: this.o.view.pkceAllowPlain }, this.o.grantEnabled);
    if ('kind' in v) {
      if (v.kind === 'page') {
        this.o.log.info({ error: v.error, why: v.description, client: req.query.get('client_id') }, 'authorization request refused on the page');
        return errorPage(v.status, v.error, v.description);
      }
      return this.redirectError(v);
    }
    if (v.nonce !== undefined && await this.o.store.codes.nonceUsed(v.clientId, v.nonce)) {
      return this.redirectError({ kind: 'redirect', redirectUri: v.redirectUri, state: v.state, error: 'invalid_request', description: 'this nonce was already used by the application; use a new one per request' });
    }
    const client = found.get(v.clientId)!;
    let binding = this.bindingOf(req);
    const headers: Record<string, string> = {};
    if (binding === undefined) {
      binding = randomToken();
      headers['set-cookie'] = `${BINDING_COOKIE}=${binding}; Path=${this.o.path}; Secure; HttpOnly; SameSite=Strict`;
    }
    const sealed = this.o.sealer.seal('login', binding, this.o.view.loginValidityMs, { r: v } satisfies LoginState);
    return loginPage({ action: this.o.path, sealed, application: client.app.name }, headers);
  }

  /** `from`: the client address failed sign-ins are counted by (AuthBackoff.addressOf, as for the token endpoint). */
  async post(req: ServletRequest, from: string): Promise<Reply> {
    if (!req.secure) return errorPage(403, 'invalid_request', 'Sign-in is served on the HTTPS port only: credentials never travel in clear.');
    const refused = this.crossSite(req);
    if (refused) {
      this.o.log.warn({ origin: req.header('origin'), site: req.header('sec-fetch-site') }, 'authorization form posted from another site: refused');
      return errorPage(403, 'invalid_request', refused);
    }
    let form: URLSearchParams;
    try {
      form = await req.form();
    } catch (err) {
      if (err instanceof UnsupportedMediaTypeError || err instanceof BodyMalformedError) return errorPage(400, 'invalid_request', 'The form could not be read. Start again from the application.');
      throw err;
    }
    const binding = this.bindingOf(req);
    if (binding === undefined) {
      return errorPage(400, 'invalid_request', 'This browser did not send the sign-in cookie (cookies may be blocked, or the form came from elsewhere). Start again from the application.');
    }
    const step = form.get('step');
    if (step === 'login') return this.login(form, binding, from);
    if (step === 'consent') return this.consent(form, binding);
    return errorPage(400, 'invalid_request', 'The form is not one of this sign-in\'s forms. Start again from the application.');
  }

  private async login(form: URLSearchParams, binding: string, from: string): Promise<Reply> {
    const st = this.o.sealer.unseal<LoginState>('login', binding, form.get('request') ?? '');
    if (!st.ok) return this.stale(st.why);
    const r = st.value.r;
    const client = await this.o.clients.find(r.clientId);
    if (!client || client.key.callbackUrl === undefined) return errorPage(400, 'invalid_client', 'The application is no longer registered.');
    const username = (form.get('username') ?? '').trim();
    const password = form.get('password') ?? '';
    const again = (errors: { form?: string; username?: string; password?: string }, name = username): Reply =>
      loginPage({ action: this.o.path, sealed: form.get('request')!, application: client.app.name, username: name, errors });
    if (!username || !password) {
      return again({
        form: 'Enter your user name and password.',
        ...(!username ? { username: 'Enter your user name.' } : {}),
        ...(!password ? { password: 'Enter your password.' } : {}),
      });
    }
    // One answer for an unknown user and a wrong password, at the same cost (the store pays a hash either way).
    // Failed sign-ins count with those of the token endpoint (one user from one address): guessing here is
    // no cheaper than there. While backed off the page says so, with 429 and no password checked.
    let user: StoreUser | undefined;
    try {
      user = username.length <= MAX_USERNAME && password.length <= MAX_PASSWORD
        ? await login(this.o.backoff, this.o.users, username, password, from, 'invalid_grant')
        : undefined;
    } catch (err) {
      if (!(err instanceof TooManyFailuresError)) throw err;
      this.o.log.warn({ client: r.clientId }, 'sign-in refused at the authorization endpoint: too many failures from this address');
      const page = again({ form: `Too many failed sign-ins. Try again in ${err.retryAfterSec} seconds.` }, username.slice(0, MAX_USERNAME));
      return { ...page, status: 429, headers: { ...page.headers, 'retry-after': String(err.retryAfterSec) } };
    }
    if (!user) {
      this.o.log.info({ client: r.clientId }, 'sign-in failed at the authorization endpoint');
      return again({ form: 'The user name or password is incorrect.', password: 'The user name or password is incorrect.' }, username.slice(0, MAX_USERNAME));
    }
    const granted = await this.o.roleScopes.filter(this.o.scopes.grant(r.scopes, client.key.scopes), user.roles);
    const consent: ConsentState = { r, u: user.username, t: this.now(), s: granted, id: randomToken() };
    const sealed = this.o.sealer.seal('consent', binding, this.o.view.loginValidityMs, consent);
    return consentPage({ action: this.o.path, sealed, application: client.app.name, user: user.username, scopes: granted, redirectOrigin: originOf(r.redirectUri) });
  }

  private async consent(form: URLSearchParams, binding: string): Promise<Reply> {
    const st = this.o.sealer.unseal<ConsentState>('consent', binding, form.get('consent') ?? '');
    if (!st.ok) return this.stale(st.why);
    const { r, u, t, s, id } = st.value;
    const client = await this.o.clients.find(r.clientId);
    if (!client || client.key.callbackUrl !== r.redirectUri || !client.key.grantTypes.includes('authorization_code')) {
      return errorPage(400, 'invalid_client', 'The application changed since the sign-in began. Start again from the application.');
    }
    const fail = (error: RedirectError['error'], description: string): Reply => this.redirectError({ kind: 'redirect', redirectUri: r.redirectUri, state: r.state, error, description }, 303);
    if (form.get('decision') !== 'allow') {
      this.o.log.info({ client: r.clientId, user: u }, 'the user denied the authorization request');
      return fail('access_denied', 'the user denied the request');
    }
    const code = randomToken();
    const now = this.now();
    try {
      await this.o.store.codes.insert({
        codeHash: tokenHash(code), requestId: tokenHash(id), clientId: r.clientId, redirectUri: r.redirectUriGiven ? r.redirectUri : '',
        scope: s.join(' '), authorizedUser: u, nonce: r.nonce ?? null, codeChallenge: r.codeChallenge ?? null,
        codeChallengeMethod: r.codeChallengeMethod ?? null, authTime: t, issuedAt: now, expiresAt: now + this.o.view.codeValidityMs,
      });
    } catch (err) {
      if (!(err instanceof UniqueViolationError)) throw err;
      if (r.nonce !== undefined && await this.o.store.codes.nonceUsed(r.clientId, r.nonce)) {
        return fail('invalid_request', 'this nonce was already used by the application; use a new one per request');
      }
      return errorPage(400, 'invalid_request', 'This consent was already given: its code was issued once. Start again from the application.');
    }
    this.o.log.info({ client: r.clientId, user: u, scope: s.join(' ') }, 'authorization code issued');
    return { status: 303, headers: { location: withParameters(r.redirectUri, { code, state: r.state, iss: this.o.issuer }), 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } };
  }

  private stale(why: 'invalid' | 'expired'): Reply {
    return why === 'expired'
      ? errorPage(400, 'invalid_request', 'The sign-in page expired. Start again from the application.')
      : errorPage(400, 'invalid_request', 'This sign-in form is not valid in this browser (it was changed, or opened in another browser). Start again from the application.');
  }

  /** 302 for GET; 303 after a POST, so that the browser follows with a GET. */
  private redirectError(e: RedirectError, status: 302 | 303 = 302): Reply {
    this.o.log.info({ error: e.error, why: e.description }, 'authorization request answered with an error');
    const location = withParameters(e.redirectUri, { error: e.error, error_description: e.description, state: e.state, iss: this.o.issuer });
    return { status, headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } };
  }

  private bindingOf(req: ServletRequest): string | undefined {
    const header = req.header('cookie');
    if (!header) return undefined;
    for (const part of header.split(';')) {
      const eq = part.indexOf('=');
      if (eq < 0 || part.slice(0, eq).trim() !== BINDING_COOKIE) continue;
      const value = part.slice(eq + 1).trim();
      if (COOKIE_VALUE.test(value)) return value;
    }
    return undefined;
  }

  /** Why a POST is refused as cross-site, or undefined. Browsers send Origin (and Sec-Fetch-Site) on form posts. */
  private crossSite(req: ServletRequest): string | undefined {
    const site = req.header('sec-fetch-site');
    if (site !== undefined && site !== 'same-origin' && site !== 'none') return 'The form was posted from another site.';
    const origin = req.header('origin');
    if (origin === undefined) return undefined;
    const host = req.header('host');
    if (origin === 'null' || host === undefined || origin.toLowerCase() !== `https://${host.toLowerCase()}`) return 'The form was posted from another site.';
    return undefined;
  }
}

function originOf(uri: string): string {
  try {
    const u = new URL(uri);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : `${u.protocol}`;
  } catch {
    return '';
  }
}

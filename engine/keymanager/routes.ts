import type { GrantName } from '../../conf/views/keymanager.js';
import { BodyMalformedError, UnsupportedMediaTypeError, json, type Reply, type ServletRequest, type ServletServer } from '../servlet/index.js';
import type { AuthorizationEndpoint } from './authorize/authorization-endpoint.js';
import { discoveryDocument } from './oidc/discovery.js';
import { bearerOf, type UserInfo } from './oidc/userinfo.js';
import { InvalidRequestError, NO_STORE_HEADERS, OAuthError, InvalidClientMetadataError, TemporarilyUnavailableError } from './errors.js';
import { isUnavailable } from '../store/index.js';
import type { ClientRegistration } from './registration.js';
import type { SigningKeys } from './signing-keys.js';
import type { TokenService } from './token-service.js';

/** The key manager's paths on the servlet ports. */
export const PATHS = {
  token: '/oauth2/token',
  revoke: '/oauth2/revoke',
  introspect: '/oauth2/introspect',
  jwks: '/oauth2/jwks',
  jwksJson: '/oauth2/jwks.json',
  registerV014: '/client-registration/v0.14/register',
  registerV015: '/client-registration/v0.15/register',
  authorize: '/oauth2/authorize',
  userinfo: '/oauth2/userinfo',
  discovery: '/.well-known/openid-configuration',
  discoveryUnderIssuer: '/oauth2/token/.well-known/openid-configuration',
  /** Gateways check Basic-auth users here (internal: the key manager credentials, as introspection). */
  authenticateUser: '/internal/identity/v1/authenticate',
} as const;

const JSON_TYPE = 'application/json';

/** The form of a token-API request; a wrong content type or a malformed body is invalid_request (RFC 6749 §5.2). */
async function oauthForm(req: ServletRequest): Promise<URLSearchParams> {
  try {
    return await req.form();
  } catch (err) {
    if (err instanceof UnsupportedMediaTypeError) throw new InvalidRequestError(`Content-Type must be application/x-www-form-urlencoded${err.got ? `, got ${err.got}` : ''}`);
    if (err instanceof BodyMalformedError) throw new InvalidRequestError(err.message);
    throw err;
  }
}

function oauthError(err: unknown, extra: Record<string, string> = {}): Reply {
  // The store gone (a full disk, PostgreSQL down) on any path the token service does not guard itself.
  if (!(err instanceof OAuthError) && isUnavailable(err)) err = new TemporarilyUnavailableError('the token store is unavailable; try again');
  if (!(err instanceof OAuthError)) throw err;
  return json(err.status, err.body(), { ...NO_STORE_HEADERS, ...err.headers, ...extra });
}

/** What the OpenID Connect routes need beside the token service. */
export interface OidcRoutes {
  readonly authorize: AuthorizationEndpoint;
  readonly userinfo: UserInfo;
  readonly grantEnabled: Readonly<Record<GrantName, boolean>>;
  readonly pkceAllowPlain: boolean;
}

/** The grant_type values the token endpoint implements, by their oauth.grant_type.<name> switch. */
const GRANT_VALUES: readonly { readonly name: GrantName; readonly value: string }[] = [
  { name: 'authorization_code', value: 'authorization_code' },
  { name: 'client_credentials', value: 'client_credentials' },
  { name: 'password', value: 'password' },
  { name: 'refresh_token', value: 'refresh_token' },
  { name: 'jwt_bearer', value: 'urn:ietf:params:oauth:grant-type:jwt-bearer' },
];

/** The small bodies of the authorization endpoint's forms. */
const AUTHORIZE_FORM_LIMIT = 32 * 1024;

/**
 * Mounts /oauth2/token, /oauth2/revoke, /oauth2/introspect, /oauth2/jwks(.json), client registration, and
 * OpenID Connect: /oauth2/authorize, /oauth2/userinfo and the discovery document.
 */
export function mountKeyManagerRoutes(server: ServletServer, svc: TokenService, keys: SigningKeys, registration: ClientRegistration, oidc: OidcRoutes): void {
  const from = (req: ServletRequest): string => svc.clientAddress(req.remoteAddress, req.header('x-forwarded-for'));
  server.route('POST', PATHS.token, async (req) => {
    try {
      const form = await oauthForm(req);
      const body = await svc.token(form, req.header('authorization'), from(req));
      return json(200, body, { ...NO_STORE_HEADERS });
    } catch (err) {
      return oauthError(err);
    }
  });

  server.route('POST', PATHS.revoke, async (req) => {
    const trace = { 'X-Sluice-TraceId': req.traceId };
    try {
      const form = await oauthForm(req);
      const r = await svc.revoke(form, req.header('authorization'), from(req));
      // Seed 000, Revocation response headers: exactly these (Date is added by the transport).
      const headers: Record<string, string | number> = {
        ...trace,
        ...(r.revokedAccessToken ? { RevokedAccessToken: r.revokedAccessToken } : {}),
        ...(r.revokedRefreshToken ? { RevokedRefreshToken: r.revokedRefreshToken } : {}),
        AuthorizedUser: r.authorizedUser,
        'X-Frame-Options': 'DENY',
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-store',
        Pragma: 'no-cache',
        'Content-Type': JSON_TYPE,
        'Content-Length': 0,
      };
      return { status: 200, headers };
    } catch (err) {
      return oauthError(err, trace);
    }
  });

  server.route('POST', PATHS.introspect, async (req) => {
    try {
      const form = await oauthForm(req);
      return json(200, await svc.introspect(form, req.header('authorization'), from(req)), { ...NO_STORE_HEADERS });
    } catch (err) {
      return oauthError(err);
    }
  });

  server.route('POST', PATHS.authenticateUser, async (req) => {
    try {
      const form = await oauthForm(req);
      return json(200, await svc.authenticateUser(form, req.header('authorization'), from(req)), { ...NO_STORE_HEADERS });
    } catch (err) {
      return oauthError(err);
    }
  });

  const jwks = (): Reply => json(200, keys.jwks(), { 'cache-control': 'public, max-age=300' });
  server.route('GET', PATHS.jwks, jwks);
  server.route('GET', PATHS.jwksJson, jwks);

  // Discovery (OpenID Connect Discovery 1.0, RFC 8414): at the issuer's path (the reference system's) and at
  // the root. The endpoints are published under the issuer's origin when the issuer is an https URL (no Host
  // header reaches a cached document), else under the request's host.
  const discovery = (req: ServletRequest): Reply => {
    let base: string;
    try {
      const u = new URL(svc.issuer);
      base = u.protocol === 'https:' ? u.origin : `https://${req.header('host') ?? 'localhost'}`;
    } catch {
      base = `https://${req.header('host') ?? 'localhost'}`;
    }
    return json(200, discoveryDocument({
      issuer: svc.issuer,
      base,
      paths: { authorize: PATHS.authorize, token: PATHS.token, revoke: PATHS.revoke, introspect: PATHS.introspect, jwks: PATHS.jwks, userinfo: PATHS.userinfo, register: PATHS.registerV015 },
      grantEnabled: oidc.grantEnabled,
      implemented: GRANT_VALUES.filter((g) => svc.implements(g.value)),
      pkceAllowPlain: oidc.pkceAllowPlain,
    }), { 'cache-control': 'public, max-age=300' });
  };
  server.route('GET', PATHS.discovery, discovery);
  server.route('GET', PATHS.discoveryUnderIssuer, discovery);

  server.route('GET', PATHS.authorize, (req) => oidc.authorize.get(req));
  server.route('POST', PATHS.authorize, (req) => oidc.authorize.post(req, from(req)), { maxBodySize: AUTHORIZE_FORM_LIMIT });

  // UserInfo: the access token in the header, or (POST) as the access_token form parameter (RFC 6750 §2.2).
  const userinfo = async (req: ServletRequest): Promise<Reply> => {
    let token = bearerOf(req.header('authorization'));
    if (token === undefined && req.method === 'POST' && req.mediaType === 'application/x-www-form-urlencoded') {
      try { token = (await req.form()).get('access_token') ?? undefined; } catch { token = undefined; }
    }
    const r = await oidc.userinfo.claims(token);
    if (r.ok) return json(200, r.claims, { ...NO_STORE_HEADERS });
    return json(r.status, { error: r.error, error_description: r.description }, {
      ...NO_STORE_HEADERS,
      'www-authenticate': token === undefined ? 'Bearer realm="sluice"' : `Bearer realm="sluice", error="${r.error}", error_description="${r.description}"`,
    });
  };
  server.route('GET', PATHS.userinfo, userinfo);
  server.route('POST', PATHS.userinfo, userinfo, { maxBodySize: 16 * 1024 });

  const register = async (req: ServletRequest): Promise<Reply> => {
    try {
      const caller = await registration.authenticate(req.header('authorization'), from(req));
      let body: unknown;
      try {
        body = await req.json();
      } catch (err) {
        if (err instanceof UnsupportedMediaTypeError || err instanceof BodyMalformedError) throw new InvalidClientMetadataError(err.message);
        throw err;
      }
      return json(200, await registration.register(body, caller), { ...NO_STORE_HEADERS });
    } catch (err) {
      return oauthError(err);
    }
  };
  server.route('POST', PATHS.registerV014, register);
  server.route('POST', PATHS.registerV015, register);
}

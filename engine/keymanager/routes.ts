import { BodyMalformedError, UnsupportedMediaTypeError, json, type Reply, type ServletRequest, type ServletServer } from '../servlet/index.js';
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
  discovery: '/.well-known/openid-configuration',
  discoveryUnderIssuer: '/oauth2/token/.well-known/openid-configuration',
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

/** Mounts /oauth2/token, /oauth2/revoke, /oauth2/introspect, /oauth2/jwks(.json) and client registration. */
export function mountKeyManagerRoutes(server: ServletServer, svc: TokenService, keys: SigningKeys, registration: ClientRegistration): void {
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

  const jwks = (): Reply => json(200, keys.jwks(), { 'cache-control': 'public, max-age=300' });
  server.route('GET', PATHS.jwks, jwks);
  server.route('GET', PATHS.jwksJson, jwks);

  // Discovery (RFC 8414 shape): a gateway on another node learns the issuer to expect from here.
  const discovery = (req: ServletRequest): Reply => {
    const host = req.header('host') ?? 'localhost';
    const base = `https://${host}`;
    return json(200, {
      issuer: svc.issuer,
      token_endpoint: `${base}${PATHS.token}`,
      revocation_endpoint: `${base}${PATHS.revoke}`,
      introspection_endpoint: `${base}${PATHS.introspect}`,
      jwks_uri: `${base}${PATHS.jwks}`,
      grant_types_supported: ['client_credentials', 'password', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    }, { 'cache-control': 'public, max-age=300' });
  };
  server.route('GET', PATHS.discovery, discovery);
  server.route('GET', PATHS.discoveryUnderIssuer, discovery);

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

import type { JWTPayload } from 'jose';
import type { Call, TokenFacts } from '../kernel/call.js';
import { PhaseResult } from '../kernel/phase.js';
import type { GatewaySecurity } from './gateway-security.js';

/** The header and query parameter an API key travels in (the reference system's names). */
export const API_KEY_HEADER = 'apikey';
export const API_KEY_QUERY = 'apikey';
/** The expiry of a key issued without one (engine/store/api-keys.ts NO_EXPIRY). */
const NO_EXPIRY = 253402300799000;
const MAX_KEY_CHARS = 8192;

/** The API key of a call: the `apikey` header, else the `apikey` query parameter; null when neither. */
export function presentedApiKey(ctx: Call): { key: string; inQuery: boolean } | null {
  const h = ctx.header(API_KEY_HEADER);
  if (h !== undefined && h.trim() !== '') return { key: h.trim(), inQuery: false };
  if (ctx.query === '' || !ctx.query.includes(`${API_KEY_QUERY}=`)) return null;
  const q = new URLSearchParams(ctx.query).get(API_KEY_QUERY);
  return q ? { key: q, inQuery: true } : null;
}

/** The query without the apikey parameter: the key is a credential and never reaches the backend. */
export function withoutApiKey(query: string): string {
  return query.split('&').filter((p) => p !== API_KEY_QUERY && !p.startsWith(`${API_KEY_QUERY}=`)).join('&');
}

/**
 * API keys at the gateway: the key is a JWT the key manager signed (engine/keymanager/api-keys.ts),
 * checked here with the JWKS the gateway already holds (no key-manager call), in the worker pool on a cache
 * miss; revoked keys are in the revocation list by their id. The application it names must be known; the
 * subscription and tier are checked by the authorize phase as for a token. An API key carries no scopes.
 */
export class ApiKeyAuth {
  constructor(private readonly security: GatewaySecurity) {}

  authenticate(ctx: Call, presented: { key: string; inQuery: boolean }): PhaseResult {
    ctx.removeBackendHeader(API_KEY_HEADER);
    if (presented.inQuery) ctx.query = withoutApiKey(ctx.query);
    const key = presented.key;
    if (key.length > MAX_KEY_CHARS) { this.security.raiseInvalid(ctx, 'the API key is too long'); return PhaseResult.STOP; }
    const now = Date.now();
    const hit = this.security.cached(key, now);
    if (hit !== undefined) {
      if (hit.tokenType !== 'API_KEY') { this.security.raiseInvalid(ctx, 'an access token is not an API key'); return PhaseResult.STOP; }
      return this.security.useCachedFacts(ctx, hit, now);
    }
    return this.security.verifySigned(ctx, key, this.accept);
  }

  private readonly accept = (ctx: Call, key: string, c: JWTPayload): void => {
    const facts = this.factsOf(c);
    if (typeof facts === 'string') { this.security.raiseInvalid(ctx, facts); return; }
    this.security.admitFacts(ctx, key, facts);
  };

  factsOf(c: JWTPayload): TokenFacts | string {
    if (c['token_type'] !== 'apiKey') return 'the credential is not an API key';
    const appClaim = c['application'] as { name?: unknown; owner?: unknown; tier?: unknown } | undefined;
    const name = typeof appClaim?.name === 'string' ? appClaim.name : '';
    const app = this.security.access.apps.get(name);
    if (!app) return 'the API key names no known application';
    if (typeof c.jti !== 'string') return 'the API key lacks jti';
    const keyType = c['keytype'] === 'SANDBOX' ? 'SANDBOX' : 'PRODUCTION';
    return {
      application: name,
      subscriber: app.owner,
      consumerKey: '',
      keyType,
      user: app.owner,
      userType: 'APPLICATION',
      scopes: [],
      tokenId: c.jti,
      tokenType: 'API_KEY',
      applicationTier: app.tier,
      claims: c as Record<string, unknown>,
      expiresAt: typeof c.exp === 'number' ? c.exp * 1000 : NO_EXPIRY,
    };
  }
}

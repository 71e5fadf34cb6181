import crypto from 'node:crypto';
import type { Logger } from 'pino';
import { ApiHandlerError } from '../../errors/api-handler.js';
import type { Call, TokenFacts } from '../kernel/call.js';
import { PhaseResult } from '../kernel/phase.js';
import type { GatewaySecurity } from './gateway-security.js';
import { TokenCache } from './token-cache.js';

/** Where the key manager checks a user for the gateway (engine/keymanager/routes.ts PATHS.authenticateUser). */
export const AUTHENTICATE_USER_PATH = '/internal/identity/v1/authenticate';
/** A correct user and password is believed this long without asking again (a changed password shows after it). */
const CACHE_MS = 60_000;
const MAX_ENTRIES = 10_000;
const ANONYMOUS_APPLICATION = '';

/**
 * HTTP Basic on APIs whose `security` lists basic_auth: the user and password are checked against the user
 * store by the key manager (the store is not in the io thread), then remembered for a minute under the
 * SHA-256 of the header (never the password itself). No application: no subscription is needed; the
 * resource's scopes must be among those the user's roles bind; the call is throttled as Unlimited at the
 * application and subscription levels (API and resource policies still apply). Wrong credentials: 900911.
 */
export class BasicAuth {
  private readonly cache = new TokenCache<TokenFacts>(MAX_ENTRIES, CACHE_MS);

  constructor(private readonly security: GatewaySecurity, private readonly log: Logger) {}

  authenticate(ctx: Call, authorization: string): PhaseResult {
    const s = this.security.settings!;
    ctx.removeBackendHeader(s.authHeader);
    const creds = decodeBasic(authorization);
    if (creds === null) { this.wrong(ctx); return PhaseResult.STOP; }
    const key = crypto.createHash('sha256').update(authorization.trim()).digest('base64url');
    const now = Date.now();
    const hit = this.cache.get(key, now);
    if (hit !== undefined) { ctx.token = hit; return PhaseResult.CONTINUE; }
    // The client's address goes along so that the key manager backs off guesses per user and client, as at
    // its own token endpoint (the gateway itself is the caller it authenticates).
    this.security.callKeyManager(AUTHENTICATE_USER_PATH, { username: creds.user, password: creds.password, client_address: ctx.clientIp }).then((r) => {
      if (ctx.finished) return;
      if (r.status === 429) {
        const retry = /^\d+$/.test(r.retryAfter ?? '') ? r.retryAfter! : '1';
        ctx.raise(ApiHandlerError.INVALID_BASIC_CREDENTIALS, {
          description: `Too many failed authentications of this user from this address; retry in ${retry} s`,
          headers: [['WWW-Authenticate', `Basic realm="${this.security.settings?.realm ?? 'Sluice'}"`], ['Retry-After', retry]],
        });
        return;
      }
      if (r.status !== 200) {
        this.log.error({ status: r.status }, 'the key manager refused the Basic-auth user check');
        ctx.raise(ApiHandlerError.AUTH_GENERAL_ERROR, { description: 'The user could not be checked' });
        return;
      }
      const j = JSON.parse(r.text) as { active?: boolean; username?: string; scopes?: string[] };
      if (j.active !== true || typeof j.username !== 'string') { this.wrong(ctx); return; }
      const facts: TokenFacts = {
        application: ANONYMOUS_APPLICATION, subscriber: j.username, consumerKey: '', keyType: 'PRODUCTION', user: j.username,
        userType: 'APPLICATION_USER', scopes: Array.isArray(j.scopes) ? j.scopes : [], tokenId: `basic:${key}`, tokenType: 'BASIC',
        applicationTier: 'Unlimited', claims: null, expiresAt: Date.now() + CACHE_MS,
      };
      this.cache.set(key, facts, facts.expiresAt, Date.now());
      ctx.token = facts;
      ctx.proceed();
    }, (err: Error) => {
      if (ctx.finished) return;
      this.log.error({ err: err.message }, 'the key manager cannot be reached to check a Basic-auth user');
      ctx.raise(ApiHandlerError.AUTH_GENERAL_ERROR, { description: 'The key manager cannot be reached to check the user' });
    });
    return PhaseResult.SUSPEND;
  }

  private wrong(ctx: Call): void {
    ctx.raise(ApiHandlerError.INVALID_BASIC_CREDENTIALS, { headers: [['WWW-Authenticate', `Basic realm="${this.security.settings?.realm ?? 'Sluice'}"`]] });
  }
}

function decodeBasic(header: string): { user: string; password: string } | null {
  const m = /^\s*basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(header);
  if (!m) return null;
  const text = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon <= 0) return null;
  return { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

/**
 * The authorize phase for a Basic-auth caller: no application and so no subscription; the resource's
 * scopes against the user's role-bound scopes; the production endpoint.
 */
export function authorizeBasicUser(ctx: Call, token: TokenFacts, security: GatewaySecurity): PhaseResult {
  const scopes = ctx.resource!.def.scopes;
  if (scopes.length > 0 && !scopes.some((s) => token.scopes.includes(s))) {
    ctx.raise(ApiHandlerError.INVALID_SCOPE, { headers: [['WWW-Authenticate', security.wwwAuthenticate('insufficient_scope', `the resource needs one of the scopes: ${scopes.join(' ')}`)]] });
    return PhaseResult.STOP;
  }
  // The endpoints of the deployment the call was routed on (set by resolve-api), not the current one.
  if ((ctx.endpoints?.production ?? null) === null) {
    ctx.raise(ApiHandlerError.PRODUCTION_KEY_ERROR);
    return PhaseResult.STOP;
  }
  ctx.auth = { ...token, tier: 'Unlimited' };
  return PhaseResult.CONTINUE;
}

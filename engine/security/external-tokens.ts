import crypto from 'node:crypto';
import type { JWK, JWTPayload } from 'jose';
import type { Call, TokenFacts } from '../kernel/call.js';
import { PhaseResult } from '../kernel/phase.js';
import type { AccessIndex } from './access-snapshot.js';

/** One [[apim.jwt.issuer]] as the io threads hold it: its settings and its current keys (plain data). */
export interface ExternalIssuerState {
  readonly name: string;
  readonly issuer: string;
  readonly keys: readonly JWK[];
  readonly consumerKeyClaim: string;
  readonly scopesClaim: string;
  readonly audience: string | undefined;
  readonly claimMappings: readonly { readonly remote: string; readonly local: string }[];
}

interface Pending { readonly ctx: Call; readonly token: string; readonly issuer: string; readonly kid: string; readonly alg: string; readonly since: number }

const PENDING_MS = 3000;
/** Calls waiting for an issuer's keys at most (a flood of unknown kids is refused beyond it). */
const MAX_PENDING = 1000;

function keyFor(keys: readonly JWK[], kid: string): JWK | undefined {
  if (kid) return keys.find((k) => k.kid === kid);
  return keys.length === 1 ? keys[0] : undefined;
}

/** A verified token's claims, handed to the one who asked for the check. */
export type VerifiedJwtHandler = (ctx: Call, token: string, claims: JWTPayload) => void;

/** What external tokens need from the gateway's security (gateway-security.ts provides it). */
export interface TokenChecks {
  readonly access: AccessIndex;
  /** 401 / 900901 with the reason in WWW-Authenticate. */
  raiseInvalid(ctx: Call, why: string): void;
  /** Verifies `token` with `jwk` in the worker pool; `accept` gets the claims of a good one. */
  verifyWithKey(ctx: Call, token: string, jwk: JWK, task: { issuer: string; alg: string; audience: string | undefined }, accept: VerifiedJwtHandler): void;
  /** The call goes on as `facts`' caller (and the facts are cached for `credential`). */
  admitFacts(ctx: Call, credential: string, facts: TokenFacts): void;
}

/**
 * Access tokens of external issuers ([[apim.jwt.issuer]], docs/security.md) on an io thread: the token's
 * `iss` picks the issuer, its keys (fetched by the main thread, pushed here) verify the signature in the
 * worker pool with its `iss` (and `audience` when set), the claim mappings rename claims, and the client
 * claim (`consumer_key_claim`, then client_id) must be an application key declared for that issuer
 * (`key_manager = "<name>"`): that key's application, subscriptions and tier authorize the call as for a
 * token of Sluice's own key manager. An unknown kid asks the main thread for the issuer's keys again.
 */
export class ExternalTokens {
  private byIss = new Map<string, ExternalIssuerState>();
  private readonly pending: Pending[] = [];

  constructor(private readonly security: TokenChecks, private readonly askMain: (payload: unknown) => void) {}

  get count(): number { return this.byIss.size; }

  apply(list: readonly ExternalIssuerState[]): void {
    this.byIss = new Map(list.map((i) => [i.issuer, i]));
    const now = Date.now();
    for (const p of this.pending.splice(0)) {
      if (p.ctx.finished) continue;
      const issuer = this.byIss.get(p.issuer);
      const jwk = issuer ? keyFor(issuer.keys, p.kid) : undefined;
      if (!issuer || !jwk) {
        // Keys fetched before the ask may come first: wait for a later push until the call's time is up.
        if (issuer && now - p.since < PENDING_MS) this.pending.push(p);
        else this.security.raiseInvalid(p.ctx, 'the access token was signed with a key its issuer does not publish');
        continue;
      }
      this.security.verifyWithKey(p.ctx, p.token, jwk, { issuer: issuer.issuer, alg: p.alg, audience: issuer.audience }, this.accept(issuer));
    }
  }

  /** The issuer a JWT names, when it is one of these (its payload read without trust: the signature decides). */
  issuerOf(token: string): ExternalIssuerState | undefined {
    const dot1 = token.indexOf('.');
    const dot2 = token.indexOf('.', dot1 + 1);
    try {
      const iss = (JSON.parse(Buffer.from(token.slice(dot1 + 1, dot2), 'base64url').toString('utf8')) as { iss?: unknown }).iss;
      return typeof iss === 'string' ? this.byIss.get(iss) : undefined;
    } catch {
      return undefined;
    }
  }

  verify(ctx: Call, token: string, issuer: ExternalIssuerState, kid: string, alg: string): PhaseResult {
    const jwk = keyFor(issuer.keys, kid);
    if (jwk === undefined) {
      const now = Date.now();
      if (this.pending.length >= MAX_PENDING) { this.security.raiseInvalid(ctx, 'the access token was signed with a key its issuer does not publish'); return PhaseResult.STOP; }
      // The main thread fetches the issuer's keys again (at most once a second, shared by every ask).
      this.pending.push({ ctx, token, issuer: issuer.issuer, kid, alg, since: now });
      this.askMain({ externalRefresh: issuer.name });
      setTimeout(() => this.expire(), PENDING_MS + 50).unref();
      return PhaseResult.SUSPEND;
    }
    this.security.verifyWithKey(ctx, token, jwk, { issuer: issuer.issuer, alg, audience: issuer.audience }, this.accept(issuer));
    return PhaseResult.SUSPEND;
  }

  private expire(): void {
    const now = Date.now();
    for (let i = this.pending.length - 1; i >= 0; i--) {
      const p = this.pending[i]!;
      if (now - p.since < PENDING_MS) continue;
      this.pending.splice(i, 1);
      if (!p.ctx.finished) this.security.raiseInvalid(p.ctx, 'the issuer\'s keys did not arrive in time');
    }
  }

  private accept(issuer: ExternalIssuerState) {
    return (ctx: Call, token: string, claims: JWTPayload): void => {
      const facts = this.factsOf(issuer, token, claims);
      if (typeof facts === 'string') { this.security.raiseInvalid(ctx, facts); return; }
      this.security.admitFacts(ctx, token, facts);
    };
  }

  factsOf(issuer: ExternalIssuerState, token: string, raw: JWTPayload): TokenFacts | string {
    const c: Record<string, unknown> = { ...raw };
    for (const m of issuer.claimMappings) if (raw[m.remote] !== undefined) c[m.local] = raw[m.remote];
    const consumerKey = String(c[issuer.consumerKeyClaim] ?? c['client_id'] ?? '');
    const key = consumerKey ? this.security.access.keys.get(consumerKey) : undefined;
    if (key === undefined || key.keyManager !== issuer.name) return `the token's client is not an application key of the issuer ${issuer.name}`;
    if (typeof raw.exp !== 'number') return 'the access token lacks exp';
    const app = this.security.access.apps.get(key.app);
    const rawScopes = c[issuer.scopesClaim];
    const scopes = typeof rawScopes === 'string' ? rawScopes.split(' ').filter(Boolean) : Array.isArray(rawScopes) ? rawScopes.map(String) : [];
    const sub = typeof raw.sub === 'string' ? raw.sub : '';
    return {
      application: key.app,
      subscriber: app?.owner ?? '',
      consumerKey,
      keyType: key.keyType,
      user: sub,
      userType: sub !== '' && sub !== consumerKey ? 'APPLICATION_USER' : 'APPLICATION',
      scopes,
      tokenId: typeof raw.jti === 'string' ? `${issuer.name}:${raw.jti}` : crypto.createHash('sha256').update(token).digest('base64url'),
      tokenType: 'JWT',
      applicationTier: app?.tier ?? 'Unlimited',
      claims: c,
      expiresAt: raw.exp * 1000,
    };
  }
}

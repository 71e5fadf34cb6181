import { ApiHandlerError } from '../../errors/api-handler.js';
import { RepeatedWarnings } from '../log/repeated-warnings.js';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { Pool } from 'undici';
import type { JWK, JWTPayload } from 'jose';
import type { Logger } from 'pino';
import type { Call, TokenFacts } from '../kernel/call.js';
import { PhaseResult } from '../kernel/phase.js';
import type { SharedState } from '../kernel/shared-state.js';
import { AccessIndex, type AccessSnapshot } from './access-snapshot.js';
import { RevocationList } from './revocations.js';
import { TokenCache } from './token-cache.js';
import { BEARER, bearerCandidate } from './bearer-token.js';
import { ExternalTokens, type ExternalIssuerState, type VerifiedJwtHandler } from './external-tokens.js';
import type { SignResult, SignTask, VerifyResult, VerifyTask } from './jwt-worker.js';
import type { BackendJwtView, CorsView, MutualSslView } from '../../conf/views/security.js';
import { turnNow } from '../../transport/event-turn.js';

/**
 * How much of a token's end keys the token cache (token-cache.ts says why not all of it). Eight characters
 * of a JWT's signature or of a random opaque token are 48 bits or more; the hash kept of them is 30. Each
 * character costs: the token is a slice of the header value, and reading a slice's characters in optimized
 * code costs some 40 instructions apiece (callgrind, 2026-11-28: 32 characters cost 1 300 a call).
 */
const TOKEN_TAIL_CHARS = 8;

/** The state keys this module shares between the main thread and io threads. */
export const SecurityState = {
  SETTINGS: 'security.settings',
  ACCESS: 'security.access',
  JWKS: 'security.jwks',
  REVOKED: 'security.revoked',
  REVOKE: 'security.revoke',
  /** [[apim.jwt.issuer]] entries with their current keys (engine/security/external-tokens.ts). */
  EXTERNAL: 'security.external',
} as const;

/** Plain settings posted to io threads. */
export interface SecuritySettings {
  readonly authHeader: string;
  readonly outboundAuthHeader: boolean;
  readonly issuer: string;
  readonly clockSkewSec: number;
  readonly cache: { readonly enabled: boolean; readonly ttlMs: number; readonly maxEntries: number };
  readonly introspection: { readonly url: string; readonly authorization: string; readonly ca: readonly string[] | undefined; readonly connections: number };
  readonly realm: string;
  /** A WebSocket handshake needs a subscription (else any valid token may connect). */
  readonly wsRequireSubscription: boolean;
  readonly cors: CorsView;
  readonly mutualSsl: MutualSslView;
  readonly backendJwt: BackendJwtView & { readonly keyPem: string | undefined; readonly certPem: string | undefined };
}

/** Asymmetric algorithms only: `none` and HMAC (which a public key could be abused for) never verify. */
export const ALLOWED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'] as const;
const ALLOWED = new Set<string>(ALLOWED_ALGORITHMS);

/** What becomes of a JWT whose signature and issuer verified: an access token, or an API key (api-key-auth.ts). */

interface PendingKid {
  readonly ctx: Call;
  readonly token: string;
  readonly kid: string;
  readonly alg: string;
  readonly since: number;
  readonly accept: VerifiedJwtHandler;
}

function workerFile(): string {
  // Compiled next to this module; under the test runner (TypeScript), the compiled copy when there is one.
  const here = new URL('./jwt-worker.js', import.meta.url);
  if (fs.existsSync(fileURLToPath(here))) return here.href;
  const compiled = new URL('../../dist/engine/security/jwt-worker.js', import.meta.url);
  if (fs.existsSync(fileURLToPath(compiled))) return compiled.href;
  return new URL('./jwt-worker.ts', import.meta.url).href;
}

function base64urlSha256(s: string): string {
  return crypto.createHash('sha256').update(s).digest('base64url');
}

/**
 * The gateway's security state on one io thread: signing keys, validated-token cache, revocations,
 * application access (subscriptions), the key-validation client and the worker pool that checks
 * signatures. The authenticate and authorize phases call into it.
 */
export class GatewaySecurity {
  settings: SecuritySettings | null = null;
  access = AccessIndex.empty();
  private jwks = new Map<string, JWK>();
  private readonly revoked = new RevocationList();
  private cache = new TokenCache<TokenFacts>(0, 0);
  /**
   * The last header value and its bearer candidate: a value that repeats (the front door replays a repeated
   * read with the same strings, kept-read.ts) hands the cache the same candidate string, found by a pointer
   * compare (token-cache.ts). Only a value that is not blank is kept (null: none yet), so a repeat of it
   * needs no blank check either.
   */
  private lastValue: string | null = null;
  private lastCandidate: string | null = null;
  private workers: Piscina | null = null;
  private introspection: Pool | null = null;
  private readonly pendingKids: PendingKid[] = [];
  private lastRefreshAsk = 0;
  private readonly timer: NodeJS.Timeout;
  readonly wwwAuthenticate: (error: string | null, description: string) => string;
  /** Access tokens of [[apim.jwt.issuer]] issuers. */
  readonly external: ExternalTokens;
  /** Failures that come once per call (the key manager unreachable): one line per window, with a count. */
  private readonly warnings: RepeatedWarnings;

  constructor(state: SharedState, readonly log: Logger, private readonly askMain: (payload: unknown) => void) {
    this.warnings = new RepeatedWarnings(log);
    this.wwwAuthenticate = (error, description) => {
      const realm = this.settings?.realm ?? 'Sluice';
      return error === null ? `Bearer realm="${realm}"` : `Bearer realm="${realm}", error="${error}", error_description="${description.replace(/"/g, "'")}"`;
    };
    state.on(SecurityState.SETTINGS, (v) => this.applySettings(v as SecuritySettings));
    state.on(SecurityState.ACCESS, (v) => { this.access = new AccessIndex(v as AccessSnapshot); });
    state.on(SecurityState.JWKS, (v) => this.applyJwks(v as { keys: JWK[] }));
    this.external = new ExternalTokens(this, askMain);
    state.on(SecurityState.EXTERNAL, (v) => this.external.apply(v as ExternalIssuerState[]));
    state.on(SecurityState.REVOKED, (v) => { for (const [id, exp] of v as [string, number][]) this.revoked.add(id, exp); });
    state.on(SecurityState.REVOKE, (v) => {
      const r = v as { tokenId: string; expiresAt: number };
      this.revoked.add(r.tokenId, r.expiresAt);
      this.cache.deleteWhere((f) => f.tokenId === r.tokenId);
    });
    this.timer = setInterval(() => { this.revoked.purge(Date.now()); this.expirePendingKids(); }, 1000);
    this.timer.unref();
  }

  private applySettings(s: SecuritySettings): void {
    this.settings = s;
    this.cache = new TokenCache<TokenFacts>(s.cache.enabled ? s.cache.maxEntries : 0, s.cache.ttlMs, TOKEN_TAIL_CHARS);
    void this.introspection?.close();
    const url = new URL(s.introspection.url);
    this.introspection = new Pool(url.origin, {
      connections: Math.max(1, s.introspection.connections),
      connect: { ...(s.introspection.ca ? { ca: [...s.introspection.ca] } : {}), rejectUnauthorized: true },
    });
  }

  private applyJwks(set: { keys: JWK[] }): void {
    const next = new Map<string, JWK>();
    for (const k of set.keys ?? []) if (k.kid) next.set(k.kid, k);
    this.jwks = next;
    // Calls that waited for an unknown kid go on now, with the key or without it.
    for (const p of this.pendingKids.splice(0)) this.verifyJwt(p.ctx, p.token, p.kid, p.alg, false, p.accept);
  }

  private pool(): Piscina {
    this.workers ??= new Piscina({ filename: workerFile(), minThreads: 1, maxThreads: 1, idleTimeout: 60_000 });
    return this.workers;
  }

  // ---- authentication ----------------------------------------------------------------------------------

  /** The authenticate phase: the token from the configured header, from the cache or validated. */
  authenticate(ctx: Call): PhaseResult {
    const s = this.settings;
    if (s === null) {
      ctx.raise(ApiHandlerError.AUTH_GENERAL_ERROR, { description: 'The gateway has not received its security settings yet' });
      return PhaseResult.STOP;
    }
    const value = ctx.header(s.authHeader);
    let candidate = this.lastCandidate;
    if (value !== this.lastValue) {
      if (value === undefined || value.trim() === '') {
        ctx.raise(ApiHandlerError.MISSING_CREDENTIALS, { headers: [['WWW-Authenticate', this.wwwAuthenticate(null, '')]] });
        return PhaseResult.STOP;
      }
      candidate = bearerCandidate(value);
      this.lastValue = value;
      this.lastCandidate = candidate;
    }
    const now = turnNow();
    if (candidate !== null) {
      const hit = this.cache.get(candidate, now);
      if (hit !== undefined) return this.useCachedAccessToken(ctx, hit, now);
    }
    const m = BEARER.exec(value);
    if (m === null) {
      this.invalid(ctx, 'the credentials are not a Bearer token');
      return PhaseResult.STOP;
    }
    const token = m[1]!;
    if (candidate === null) {
      const hit = this.cache.get(token, now);
      if (hit !== undefined) return this.useCachedAccessToken(ctx, hit, now);
    }
    const parts = token.split('.');
    if (parts.length === 3) return this.startJwt(ctx, token, parts[0]!);
    if (parts.length !== 1) { this.invalid(ctx, 'the access token is malformed'); return PhaseResult.STOP; }
    this.introspect(ctx, token);
    return PhaseResult.SUSPEND;
  }

  /** The cache also holds API keys (api-key-auth.ts): one is not an access token, however it verified. */
  private useCachedAccessToken(ctx: Call, hit: TokenFacts, now: number): PhaseResult {
    if (hit.tokenType === 'API_KEY') { this.invalid(ctx, 'an API key is not an access token (send it in the apikey header)'); return PhaseResult.STOP; }
    return this.useCached(ctx, hit, now);
  }

  /** A token validated before: still good unless revoked or expired since. */
  private useCached(ctx: Call, hit: TokenFacts, now: number): PhaseResult {
    if (this.revoked.has(hit.tokenId)) { this.invalid(ctx, 'the access token has been revoked'); return PhaseResult.STOP; }
    if (hit.expiresAt <= now - this.settings!.clockSkewSec * 1000) { this.invalid(ctx, 'the access token has expired'); return PhaseResult.STOP; }
    ctx.token = hit;
    return PhaseResult.CONTINUE;
  }

  private invalid(ctx: Call, why: string): void {
    ctx.raise(ApiHandlerError.INVALID_CREDENTIALS, { headers: [['WWW-Authenticate', this.wwwAuthenticate('invalid_token', why)]] });
  }

  /**
   * Checks a JWT signed by the key manager (signature with its JWKS, issuer, times) off the io thread and
   * hands its claims to `accept`; a bad one raises 900901. SUSPEND or STOP, as the phase returns.
   */
  verifySigned(ctx: Call, token: string, accept: VerifiedJwtHandler): PhaseResult {
    const parts = token.split('.');
    if (parts.length !== 3) { this.invalid(ctx, 'the credential is malformed'); return PhaseResult.STOP; }
    return this.startJwt(ctx, token, parts[0]!, accept);
  }

  /** A token validated before (access token or API key), or undefined. */
  cached(token: string, now: number): TokenFacts | undefined {
    return this.cache.get(token, now);
  }

  /** Admits a call with facts checked by another scheme (API key), caching them under its credential. */
  admitFacts(ctx: Call, credential: string, facts: TokenFacts): void {
    this.admit(ctx, credential, facts);
  }

  /** A cached credential's facts: still good unless revoked or expired since. */
  useCachedFacts(ctx: Call, hit: TokenFacts, now: number): PhaseResult {
    return this.useCached(ctx, hit, now);
  }

  raiseInvalid(ctx: Call, why: string): void {
    this.invalid(ctx, why);
  }

  private startJwt(ctx: Call, token: string, headerPart: string, accept: VerifiedJwtHandler = this.acceptAccessToken): PhaseResult {
    let header: { alg?: unknown; kid?: unknown };
    try {
      header = JSON.parse(Buffer.from(headerPart, 'base64url').toString('utf8')) as { alg?: unknown; kid?: unknown };
    } catch {
      this.invalid(ctx, 'the access token is malformed');
      return PhaseResult.STOP;
    }
    const alg = typeof header.alg === 'string' ? header.alg : '';
    if (!ALLOWED.has(alg)) { this.invalid(ctx, `the access token algorithm ${alg || '(none)'} is not allowed`); return PhaseResult.STOP; }
    const kid = typeof header.kid === 'string' ? header.kid : '';
    // A token of another issuer (only ever as an access token): that issuer's keys, not this key manager's.
    if (accept === this.acceptAccessToken && this.external.count > 0) {
      const issuer = this.external.issuerOf(token);
      if (issuer !== undefined && issuer.issuer !== this.settings!.issuer) return this.external.verify(ctx, token, issuer, kid, alg);
    }
    this.verifyJwt(ctx, token, kid, alg, true, accept);
    return PhaseResult.SUSPEND;
  }

  /** Verifies a JWT with a given key in the worker pool and hands the claims on (this key manager's or an external issuer's). */
  verifyWithKey(ctx: Call, token: string, jwk: JWK, task: { issuer: string; alg: string; audience: string | undefined }, accept: VerifiedJwtHandler): void {
    const s = this.settings!;
    const t: VerifyTask = { kind: 'verify', token, jwk, issuer: task.issuer, algorithms: [task.alg], clockSkewSec: s.clockSkewSec, ...(task.audience !== undefined ? { audience: task.audience } : {}) };
    this.pool().run(t).then(
      (r: VerifyResult) => {
        if (ctx.finished) return;
        if (!r.ok) { this.invalid(ctx, r.reason); return; }
        accept(ctx, token, r.claims);
      },
      (err: Error) => {
        this.warnings.error('verify worker', { err: err.message }, 'token verification worker failed');
        if (!ctx.finished) ctx.raise(ApiHandlerError.AUTH_GENERAL_ERROR, { description: 'The access token could not be validated' });
      },
    );
  }

  /** Verifies in the worker pool; an unknown kid asks the main thread for fresh keys once. */
  private verifyJwt(ctx: Call, token: string, kid: string, alg: string, mayRefresh: boolean, accept: VerifiedJwtHandler): void {
    if (ctx.finished) return;
    const s = this.settings!;
    let jwk = kid ? this.jwks.get(kid) : undefined;
    if (jwk === undefined && !kid && this.jwks.size === 1) jwk = this.jwks.values().next().value;
    if (jwk === undefined) {
      const now = Date.now();
      if (mayRefresh && now - this.lastRefreshAsk > 10_000) {
        this.lastRefreshAsk = now;
        this.askMain({ jwksRefresh: true, kid });
        this.pendingKids.push({ ctx, token, kid, alg, since: now, accept });
        return;
      }
      this.invalid(ctx, 'the access token was signed with an unknown key');
      return;
    }
    this.verifyWithKey(ctx, token, jwk, { issuer: s.issuer, alg, audience: undefined }, accept);
  }

  private expirePendingKids(): void {
    const now = Date.now();
    for (let i = this.pendingKids.length - 1; i >= 0; i--) {
      const p = this.pendingKids[i]!;
      if (now - p.since < 3000) continue;
      this.pendingKids.splice(i, 1);
      if (!p.ctx.finished) this.invalid(p.ctx, 'the access token was signed with an unknown key');
    }
  }

  private readonly acceptAccessToken: VerifiedJwtHandler = (ctx, token, claims) => {
    const facts = this.factsFromClaims(claims);
    if (typeof facts === 'string') { this.invalid(ctx, facts); return; }
    this.admit(ctx, token, facts);
  };

  /** Turns the key manager's claims into TokenFacts, checking the audience against known consumer keys. */
  factsFromClaims(c: JWTPayload): TokenFacts | string {
    // Other JWTs the key manager signs with the same key are not access tokens.
    if (c['token_type'] === 'apiKey') return 'an API key is not an access token (send it in the apikey header)';
    if (c['at_hash'] !== undefined || c['nonce'] !== undefined) return 'an id_token is not an access token';
    const aud = Array.isArray(c.aud) ? c.aud[0] : c.aud;
    const consumerKey = String(c['client_id'] ?? c['azp'] ?? aud ?? '');
    const key = this.access.keys.get(consumerKey);
    if (!consumerKey || key === undefined) return 'the access token was not issued to a known application';
    if (key.keyManager !== undefined) return `the client ${consumerKey} belongs to the issuer ${key.keyManager}, not this key manager`;
    if (aud !== undefined && aud !== consumerKey && !(Array.isArray(c.aud) && c.aud.includes(consumerKey))) return 'the access token audience does not match its client';
    const appClaim = (c['application'] ?? {}) as { name?: string; owner?: string; tier?: string };
    const app = this.access.apps.get(key.app);
    if (typeof c.jti !== 'string' || typeof c.exp !== 'number') return 'the access token lacks jti or exp';
    return {
      application: key.app,
      subscriber: String(c['subscriber'] ?? appClaim.owner ?? app?.owner ?? ''),
      consumerKey,
      keyType: key.keyType,
      user: String(c.sub ?? ''),
      userType: c['aut'] === 'APPLICATION_USER' ? 'APPLICATION_USER' : 'APPLICATION',
      scopes: typeof c['scope'] === 'string' ? (c['scope'] as string).split(' ').filter(Boolean) : [],
      tokenId: c.jti,
      tokenType: 'JWT',
      applicationTier: app?.tier ?? appClaim.tier ?? 'Unlimited',
      claims: c as Record<string, unknown>,
      expiresAt: c.exp * 1000,
    };
  }

  private admit(ctx: Call, token: string, facts: TokenFacts): void {
    const now = Date.now();
    if (this.revoked.has(facts.tokenId)) { this.invalid(ctx, 'the access token has been revoked'); return; }
    this.cache.set(token, facts, facts.expiresAt, now);
    ctx.token = facts;
    ctx.proceed();
  }

  /** Opaque (reference) tokens: RFC 7662 introspection at the key manager. */
  private introspect(ctx: Call, token: string): void {
    const s = this.settings!;
    const url = new URL(s.introspection.url);
    this.introspection!.request({
      path: url.pathname + url.search,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: s.introspection.authorization },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    }).then(async (res) => {
      const text = await res.body.text();
      if (ctx.finished) return;
      if (res.statusCode !== 200) {
        this.warnings.error('introspection refused', { status: res.statusCode }, 'key validation call refused');
        ctx.raise(ApiHandlerError.AUTH_GENERAL_ERROR, { description: 'The key manager refused the key validation call' });
        return;
      }
      const r = JSON.parse(text) as Record<string, unknown>;
      if (r['active'] !== true) { this.invalid(ctx, 'the access token is not active'); return; }
      const consumerKey = String(r['client_id'] ?? '');
      const key = this.access.keys.get(consumerKey);
      const app = key ? this.access.apps.get(key.app) : undefined;
      if (!key) { this.invalid(ctx, 'the access token was not issued to a known application'); return; }
      this.admit(ctx, token, {
        application: key.app,
        subscriber: String(r['subscriber'] ?? app?.owner ?? ''),
        consumerKey,
        keyType: key.keyType,
        user: String(r['username'] ?? r['sub'] ?? ''),
        userType: r['user_type'] === 'APPLICATION_USER' ? 'APPLICATION_USER' : 'APPLICATION',
        scopes: typeof r['scope'] === 'string' ? (r['scope'] as string).split(' ').filter(Boolean) : [],
        tokenId: base64urlSha256(token),
        tokenType: 'OPAQUE',
        applicationTier: app?.tier ?? String(r['application_tier'] ?? 'Unlimited'),
        claims: null,
        expiresAt: Number(r['exp'] ?? 0) * 1000,
      });
    }, (err: Error) => {
      if (ctx.finished) return;
      this.warnings.error('introspection unreachable', { err: err.message, url: s.introspection.url }, 'the key manager cannot be reached for key validation');
      ctx.raise(ApiHandlerError.AUTH_GENERAL_ERROR, { description: 'The key manager cannot be reached to validate the access token' });
    });
  }

  /** POSTs a form to the key manager's origin with the key-validation credentials (Basic-auth user checks). */
  async callKeyManager(path: string, form: Record<string, string>): Promise<{ status: number; text: string; retryAfter: string | undefined }> {
    const s = this.settings!;
    const res = await this.introspection!.request({
      path, method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: s.introspection.authorization },
      body: new URLSearchParams(form).toString(), headersTimeout: 10_000, bodyTimeout: 10_000,
    });
    const retryAfter = res.headers['retry-after'];
    return { status: res.statusCode, text: await res.body.text(), retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter };
  }

  /** Whether a token (its jti, or the hash of an opaque token) has been revoked: WebSocket sessions ask on each message. */
  isRevoked(tokenId: string): boolean {
    return this.revoked.has(tokenId);
  }

  // ---- backend JWT -----------------------------------------------------------------------------------

  sign(task: SignTask): Promise<SignResult> {
    return this.pool().run(task) as Promise<SignResult>;
  }

  stop(): void {
    clearInterval(this.timer);
    this.warnings.stop();
    void this.workers?.destroy();
    void this.introspection?.close();
  }
}

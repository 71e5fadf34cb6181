import { GatewayError } from '../../../errors/gateway.js';
import crypto from 'node:crypto';
import type { GatewaySecurity } from '../../security/gateway-security.js';
import type { Call } from '../../kernel/call.js';
import { PhaseResult, type GatewayPhase } from '../../kernel/phase.js';
import { TokenCache } from '../../security/token-cache.js';
import { setMember } from '../../../mediation/members.js';

const CLAIM = 'http://wso2.org/claims/';

/**
 * The backend JWT ([apim.jwt] enable): a JWT about the caller for the backend, in the configured header
 * (default X-JWT-Assertion), signed with the gateway's key (SHA256withRSA) or unsigned (NONE), with the
 * reference system's claim names. Built once per token and API (apim.cache.jwt_claim) in a worker thread.
 */
export class BackendJwtPhase implements GatewayPhase {
  readonly name = 'backend-jwt';
  private readonly cache = new TokenCache<string>(50_000, Number.MAX_SAFE_INTEGER);
  private headerCache: Record<string, unknown> | null = null;

  constructor(private readonly security: GatewaySecurity) {}

  private jwtHeader(): Record<string, unknown> {
    if (this.headerCache) return this.headerCache;
    const j = this.security.settings!.backendJwt;
    const header: Record<string, unknown> = { typ: 'JWT' };
    if (j.certPem) {
      const der = new crypto.X509Certificate(j.certPem).raw;
      const digest = crypto.createHash(j.sha256Thumbprint ? 'sha256' : 'sha1').update(der).digest();
      let x5t = digest.toString('base64url');
      if (!j.x5tWithoutPadding) x5t += '='.repeat((4 - (x5t.length % 4)) % 4);
      header[j.sha256Thumbprint ? 'x5t#S256' : 'x5t'] = x5t;
      if (j.useKid) header['kid'] = crypto.createHash('sha256').update(der).digest('hex');
    }
    this.headerCache = header;
    return header;
  }

  onRequest(ctx: Call): PhaseResult {
    const s = this.security.settings;
    const auth = ctx.auth;
    if (s === null || !s.backendJwt.enabled || auth === null || ctx.api === null) return PhaseResult.CONTINUE;
    const j = s.backendJwt;
    const api = ctx.api.def;
    const key = `${auth.tokenId}|${api.id}|${auth.tier}`;
    const now = Date.now();
    const cached = j.cacheEnabled ? this.cache.get(key, now) : undefined;
    if (cached !== undefined) {
      ctx.addBackendHeaders(j.header, cached);
      return PhaseResult.CONTINUE;
    }
    const exp = Math.floor(auth.expiresAt / 1000);
    const claims: Record<string, unknown> = {
      iss: 'wso2.org/products/am',
      exp,
      iat: Math.floor(now / 1000),
      [`${CLAIM}subscriber`]: auth.subscriber,
      [`${CLAIM}applicationid`]: auth.application,
      [`${CLAIM}applicationname`]: auth.application,
      [`${CLAIM}applicationtier`]: auth.applicationTier,
      [`${CLAIM}apiname`]: api.name,
      [`${CLAIM}apicontext`]: `${api.context}/${api.version}`,
      [`${CLAIM}version`]: api.version,
      [`${CLAIM}tier`]: auth.tier,
      [`${CLAIM}keytype`]: auth.keyType,
      [`${CLAIM}usertype`]: auth.userType,
      [`${CLAIM}enduser`]: auth.user,
      [`${CLAIM}enduserTenantId`]: '-1234',
      [`${CLAIM}client_id`]: auth.consumerKey,
    };
    if (j.enableUserClaims && auth.claims) {
      // Claim names are the token issuer's: own members only (a claim named constructor or __proto__ is one).
      for (const [k, v] of Object.entries(auth.claims)) if (!Object.hasOwn(claims, k) && k !== 'application') setMember(claims, k, v);
    }
    for (const x of j.excludedClaims) delete claims[x];
    this.security.sign({ kind: 'sign', header: this.jwtHeader(), payload: claims, keyPem: j.keyPem ?? '', encoding: j.encoding, sign: j.sign && j.keyPem !== undefined })
      .then((r) => {
        if (ctx.finished) return;
        if (!r.ok) {
          ctx.raise(GatewayError.BACKEND_JWT_FAILED);
          return;
        }
        const until = j.cacheExpiryMs !== undefined ? Date.now() + j.cacheExpiryMs : auth.expiresAt;
        if (j.cacheEnabled) this.cache.set(key, r.jwt, Math.min(until, auth.expiresAt), Date.now());
        ctx.addBackendHeaders(j.header, r.jwt);
        ctx.proceed();
      }, (err: Error) => {
        if (!ctx.finished) ctx.raise(GatewayError.BACKEND_JWT_FAILED, { description: `The backend JWT could not be generated: ${err.message}` });
      });
    return PhaseResult.SUSPEND;
  }
}

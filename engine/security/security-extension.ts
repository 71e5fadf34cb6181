import { Agent, request } from 'undici';
import type { JWK } from 'jose';
import type { Logger } from 'pino';
import type { Config } from '../../conf/config.js';
import { backendJwtView, corsView, externalIssuersView, mutualSslView, senderTls, tokenValidationView } from '../../conf/typed-config.js';
import { IssuerKeys } from '../external-issuers/issuer-keys.js';
import type { ExternalIssuerState } from './external-tokens.js';
import { loadTrustedCertificates } from '../../transport/tls/key-store.js';
import type { EventBus } from '../events/event-bus.js';
import type { ApplicationDefinition } from '../registry/types.js';
import type { ExtensionThreads, GatewayExtension } from '../kernel/extension.js';
import type { ServerTlsMaterial } from '../../transport/tls/server-tls.js';
import { buildAccessSnapshot } from './access-snapshot.js';
import { SecurityState, type SecuritySettings } from './gateway-security.js';

/** Where the gateway's security facts come from: the key manager in this process, or across the network. */
export interface SecuritySources {
  /** Applications with their keys and subscriptions (both doors: files and the admin API). */
  loadApplications(): Promise<readonly ApplicationDefinition[]>;
  loadJwks(): Promise<{ keys: JWK[] }>;
  /** Revoked tokens that have not expired yet: a starting gateway must not forget them. */
  loadRevoked(): Promise<readonly { readonly tokenId: string; readonly expiresAt: number }[]>;
  /** The issuer the key manager puts in its tokens, when it is not this process's configuration. */
  loadIssuer?(): Promise<string>;
  /** The JWKS changes (key rotation): how often to ask again; 0 never. */
  readonly jwksRefreshMs: number;
}

/** The key manager's discovery document (its `issuer`), at the origin of its JWKS URL. */
export function remoteIssuer(jwksUrl: string, ca: readonly string[] | undefined): () => Promise<string> {
  const dispatcher = new Agent({ connect: { ...(ca ? { ca: [...ca] } : {}), rejectUnauthorized: true } });
  return async () => {
    const url = `${new URL(jwksUrl).origin}/.well-known/openid-configuration`;
    const res = await request(url, { dispatcher, headersTimeout: 10_000, bodyTimeout: 10_000 });
    const body = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
    const j = JSON.parse(body) as { issuer?: unknown };
    if (typeof j.issuer !== 'string') throw new Error(`${url} names no issuer`);
    return j.issuer;
  };
}

/** Fetches the key manager's JWKS over HTTPS, trusting the configured CA certificates. */
export function remoteJwks(url: string, ca: readonly string[] | undefined): () => Promise<{ keys: JWK[] }> {
  const dispatcher = new Agent({ connect: { ...(ca ? { ca: [...ca] } : {}), rejectUnauthorized: true } });
  return async () => {
    const res = await request(url, { dispatcher, headersTimeout: 10_000, bodyTimeout: 10_000 });
    const body = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`JWKS ${url} answered ${res.statusCode}`);
    const j = JSON.parse(body) as { keys?: JWK[] };
    if (!Array.isArray(j.keys)) throw new Error(`JWKS ${url} has no keys`);
    return { keys: j.keys };
  };
}

/**
 * The security part of the gateway on the main thread: sends every io thread its settings, the signing
 * keys, the applications' access (subscriptions) and the revoked tokens, and keeps them current: a
 * revocation reaches every io thread before the revocation call returns (the bus waits for this handler),
 * an application change within moments, a key rotation on the next unknown `kid`.
 */
export class SecurityExtension implements GatewayExtension {
  readonly name = 'security';
  private threads: ExtensionThreads | null = null;
  /** The key manager's issuer learned from it (another node); null: this configuration's. */
  private issuer: string | null = null;
  private current: { keys: JWK[] } = { keys: [] };
  private readonly unsubscribe: (() => void)[] = [];
  private generation = 0;
  private jwksTimer: NodeJS.Timeout | null = null;
  private lastJwksFetch = 0;
  /** [[apim.jwt.issuer]] entries and their keys, fetched here and pushed to the io threads. */
  private readonly issuers: IssuerKeys[] = [];
  private readonly issuerTimers: NodeJS.Timeout[] = [];

  constructor(
    private readonly config: Config,
    private readonly log: Logger,
    private readonly bus: EventBus,
    private readonly sources: SecuritySources,
    private readonly tls: ServerTlsMaterial | null,
  ) {}

  settings(): SecuritySettings {
    const v = tokenValidationView(this.config);
    const trust = senderTls(this.config).trustStore;
    const ca = [...(trust ? loadTrustedCertificates(trust) : []), ...(this.tls ? [this.tls.certChainPem] : [])];
    return {
      authHeader: v.authHeader,
      outboundAuthHeader: v.outboundAuthHeader,
      issuer: this.issuer ?? v.issuer,
      clockSkewSec: v.clockSkewSec,
      cache: { enabled: v.cacheEnabled, ttlMs: v.cacheExpiryMs, maxEntries: v.cacheMaxEntries },
      introspection: {
        url: v.introspectionUrl,
        authorization: 'Basic ' + Buffer.from(`${v.introspectionUser}:${v.introspectionPassword ?? ''}`).toString('base64'),
        ca: ca.length ? ca : undefined,
        connections: Math.min(v.maxPerRoute, v.maxTotal),
      },
      realm: 'Sluice',
      wsRequireSubscription: v.wsRequireSubscription,
      cors: corsView(this.config),
      mutualSsl: mutualSslView(this.config),
      backendJwt: { ...backendJwtView(this.config), keyPem: this.tls?.keyPem, certPem: this.tls?.certChainPem },
    };
  }

  private async access(): Promise<ReturnType<typeof buildAccessSnapshot>> {
    return buildAccessSnapshot(await this.sources.loadApplications(), ++this.generation);
  }

  private async learnIssuer(): Promise<boolean> {
    if (!this.sources.loadIssuer || this.config.isWritten('oauth.oidc.id_token.issuer')) return false;
    try {
      const issuer = await this.sources.loadIssuer();
      const changed = issuer !== this.issuer;
      this.issuer = issuer;
      return changed;
    } catch (err) {
      this.log.error({ err: (err as Error).message }, 'cannot learn the key manager\'s issuer; expecting the configured one');
      return false;
    }
  }

  /** The external issuers with the keys they have now (a failed fetch keeps the previous keys, or none). */
  private async externalState(refresh: IssuerKeys | null = null): Promise<ExternalIssuerState[]> {
    const out: ExternalIssuerState[] = [];
    for (const k of this.issuers) {
      let keys: readonly JWK[] = [];
      try {
        keys = k === refresh ? await k.refresh() : await k.current();
      } catch (err) {
        this.log.error({ issuer: k.issuer.name, err: (err as Error).message }, 'cannot load the keys of an external issuer; its tokens fail until they load');
      }
      const i = k.issuer;
      out.push({ name: i.name, issuer: i.issuer, keys: [...keys], consumerKeyClaim: i.consumerKeyClaim, scopesClaim: i.scopesClaim, audience: i.audience, claimMappings: i.claimMappings });
    }
    return out;
  }

  async initialState(): Promise<Record<string, unknown>> {
    if (this.issuers.length === 0) {
      const trust = senderTls(this.config).trustStore;
      const ca = trust ? loadTrustedCertificates(trust) : undefined;
      for (const v of externalIssuersView(this.config)) {
        if (!v.jwksUrl && !v.certificate) { this.log.warn({ issuer: v.name }, '[[apim.jwt.issuer]] without jwks.url or certificate: its tokens cannot be checked and are refused'); continue; }
        this.issuers.push(new IssuerKeys(v, ca));
      }
    }
    await this.learnIssuer();
    const [access, jwks, revoked] = await Promise.all([this.access(), this.safeJwks(), this.sources.loadRevoked()]);
    return {
      [SecurityState.SETTINGS]: this.settings(),
      [SecurityState.ACCESS]: access,
      [SecurityState.JWKS]: jwks,
      [SecurityState.REVOKED]: revoked.map((r) => [r.tokenId, r.expiresAt]),
      [SecurityState.EXTERNAL]: await this.externalState(),
    };
  }

  private async safeJwks(): Promise<{ keys: JWK[] }> {
    try {
      this.lastJwksFetch = Date.now();
      this.current = await this.sources.loadJwks();
      return this.current;
    } catch (err) {
      this.log.error({ err: (err as Error).message }, 'cannot load the signing keys (JWKS); JWT access tokens fail until they load');
      return { keys: [] };
    }
  }

  started(threads: ExtensionThreads): void {
    this.threads = threads;
    this.unsubscribe.push(this.bus.subscribe('token.revoked', (e) => threads.pushState(SecurityState.REVOKE, { tokenId: e.tokenId, expiresAt: e.expiresAt })));
    this.unsubscribe.push(this.bus.subscribe('registry.changed', async (e) => {
      if (e.kind !== 'applications') return;
      try {
        await threads.pushState(SecurityState.ACCESS, await this.access());
      } catch (err) {
        this.log.error({ err: (err as Error).message }, 'cannot reload application access; the previous one stays');
      }
    }));
    threads.onExtensionMessage('security', (payload) => {
      const p = payload as { jwksRefresh?: boolean; kid?: string; externalRefresh?: string };
      if (p.externalRefresh !== undefined) { void this.refreshIssuer(this.issuers.find((k) => k.issuer.name === p.externalRefresh) ?? null); return; }
      if (p.jwksRefresh && Date.now() - this.lastJwksFetch > 1000) void this.refreshJwks(`unknown kid ${p.kid ?? ''}`);
      else if (p.jwksRefresh) void this.pushCurrentJwks();
    });
    for (const k of this.issuers) {
      const timer = setInterval(() => void this.refreshIssuer(k), Math.max(1000, k.issuer.jwksRefreshMs));
      timer.unref();
      this.issuerTimers.push(timer);
    }
    if (this.sources.jwksRefreshMs > 0) {
      this.jwksTimer = setInterval(() => void this.refreshJwks('periodic'), this.sources.jwksRefreshMs);
      this.jwksTimer.unref();
    }
  }

  private async refreshJwks(why: string): Promise<void> {
    if (await this.learnIssuer()) await this.threads?.pushState(SecurityState.SETTINGS, this.settings());
    const jwks = await this.safeJwks();
    this.current = jwks;
    this.log.info({ keys: jwks.keys.length, why }, 'signing keys (JWKS) refreshed');
    await this.threads?.pushState(SecurityState.JWKS, jwks);
  }

  /** One refresh and push at a time per issuer: the asks of many io threads (or a flood of unknown kids) share it. */
  private readonly refreshing = new Map<IssuerKeys | null, Promise<void>>();

  private refreshIssuer(k: IssuerKeys | null): Promise<void> {
    let p = this.refreshing.get(k);
    if (p) return p;
    p = (async () => {
      try {
        await this.threads?.pushState(SecurityState.EXTERNAL, await this.externalState(k));
      } catch (err) {
        this.log.error({ err: (err as Error).message }, 'cannot push the external issuers\' keys');
      } finally {
        this.refreshing.delete(k);
      }
    })();
    this.refreshing.set(k, p);
    return p;
  }

  /** A thread waits for keys that were fetched moments ago: send them again so it stops waiting. */
  private async pushCurrentJwks(): Promise<void> {
    await this.threads?.pushState(SecurityState.JWKS, this.current.keys.length ? this.current : await this.safeJwks());
  }

  stop(): void {
    for (const u of this.unsubscribe.splice(0)) u();
    if (this.jwksTimer) clearInterval(this.jwksTimer);
    for (const t of this.issuerTimers.splice(0)) clearInterval(t);
    for (const k of this.issuers) k.close();
  }
}

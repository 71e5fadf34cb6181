import { CACHES } from './caches.js';
import { DATABASES } from './databases.js';
import { ARTIFACT_GENERATOR, EVENT_HUB, GATEWAY_ENVIRONMENTS, GATEWAY_NOTIFICATION, QPID } from './gateways.js';
import { APIM_JWT, KEY_MANAGER, OAUTH, OAUTH_CONFIG, TOKEN_REVOCATION } from './jwt-and-oauth.js';
import { MEDIATION } from './mediation.js';
import { ACCESS_LOG, ANALYTICS, HEALTH_CHECKS, OPEN_TRACER } from './observability.js';
import { AI, DEVPORTAL, EMAIL, GOVERNANCE, INDEXING, REGISTRY_HANDLERS, SDK, WORKFLOW } from './portals.js';
import { BASIC_AUTHENTICATOR, CORS, CUSTOM_KEYSTORES, MEDIATOR_TRUST_STORE, MUTUAL_SSL, SECURITY_AUDIT, USER_STORE } from './security.js';
import { SERVER } from './server.js';
import { TENANCY } from './tenancy.js';
import { THROTTLE_DATA_TRANSPORT, THROTTLING } from './throttling.js';
import { TRANSPORTS } from './transports.js';
import { SLUICE_KEYS } from './sluice.js';
import type { KeySpec, ValueOf } from './types.js';

/**
 * Every deployment.toml key Sluice knows: the seed catalog's sections (Parts A and B; the files group them by
 * subject), in the seed's order, then Sluice's own keys. The order is kept because it shows: the loader fills
 * defaults and checks required keys in it, so `check-config --print` lists sections and reports in it.
 */
export const CATALOG = [
  // Part A
  ...SERVER, ...DATABASES, ...APIM_JWT, ...GATEWAY_ENVIRONMENTS, ...CACHES, ...ANALYTICS, ...KEY_MANAGER, ...AI,
  ...OAUTH_CONFIG, ...GATEWAY_NOTIFICATION, ...MUTUAL_SSL, ...SECURITY_AUDIT, ...DEVPORTAL, ...CORS, ...THROTTLING,
  ...WORKFLOW, ...SDK, ...OPEN_TRACER, ...TOKEN_REVOCATION, ...EVENT_HUB, ...EMAIL,
  // [tenant_mgt] ends Part A, [multi_tenancy] opens Part B
  ...TENANCY,
  // Part B
  ...INDEXING, ...TRANSPORTS, ...MEDIATION, ...GOVERNANCE, ...QPID, ...HEALTH_CHECKS, ...OAUTH, ...USER_STORE,
  ...CUSTOM_KEYSTORES, ...ACCESS_LOG, ...REGISTRY_HANDLERS, ...MEDIATOR_TRUST_STORE, ...THROTTLE_DATA_TRANSPORT,
  ...BASIC_AUTHENTICATOR, ...ARTIFACT_GENERATOR,
  ...SLUICE_KEYS,
] as const;

export type CatalogEntry = (typeof CATALOG)[number];
/** Paths of keys in plain `[sections]` whose names hold no `<placeholder>`: what `Config.get` accepts. */
export type ScalarPath = Exclude<Extract<CatalogEntry, { repeatable: false }>['path'], `${string}<${string}`>;
type EntryAt<P extends string> = Extract<CatalogEntry, { path: P }>;
/** The loaded type of a key: defined when the catalog (or the machine) gives a default. */
export type ValueAt<P extends ScalarPath> = EntryAt<P> extends { default: unknown } | { computedDefault: string }
  ? ValueOf<EntryAt<P>['type']>
  : ValueOf<EntryAt<P>['type']> | undefined;
export type RepeatableSection = Extract<CatalogEntry, { repeatable: true }>['section'];

/** Lookup structures over the catalog, built once. */
export class CatalogIndex {
  readonly exact = new Map<string, KeySpec>();
  /** Entries whose section holds a `<name>` segment, with a matcher for concrete paths. */
  readonly patterns: { readonly re: RegExp; readonly spec: KeySpec }[] = [];
  readonly repeatableSections = new Set<string>();
  readonly tableKeys = new Set<string>();
  readonly all: readonly KeySpec[];

  constructor(entries: readonly KeySpec[]) {
    this.all = entries;
    for (const e of entries) {
      if (e.repeatable) this.repeatableSections.add(e.section);
      if (e.path.includes('<')) {
        const re = new RegExp('^' + e.path.split('.').map((seg) => (seg.includes('<')
          ? seg.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/<[^>]+>/g, '[^.]+')
          : seg.replace(/[.*+?^$(){}|[\]\\]/g, '\\$&'))).join('\\.') + '$');
        this.patterns.push({ re, spec: e });
        continue;
      }
      if (this.exact.has(e.path)) throw new Error(`catalog lists ${e.path} twice`);
      this.exact.set(e.path, e);
      if (e.type === 'table') this.tableKeys.add(e.path);
    }
    this.sortPatterns();
  }

  /** Patterns with fewer `<name>` segments first, so a literal segment wins over a placeholder. */
  private sortPatterns(): void {
    const holes = (p: string): number => p.split('<').length;
    this.patterns.sort((a, b) => holes(a.spec.path) - holes(b.spec.path));
  }

  find(path: string): KeySpec | undefined {
    const hit = this.exact.get(path);
    if (hit) return hit;
    for (const p of this.patterns) if (p.re.test(path)) return p.spec;
    return undefined;
  }

  /** A path is a free key-value table when the catalog says so (also for `<name>` sections). */
  isTable(path: string): boolean {
    if (this.tableKeys.has(path)) return true;
    for (const p of this.patterns) if (p.spec.type === 'table' && p.re.test(path)) return true;
    return false;
  }

  isRepeatable(path: string): boolean {
    return this.repeatableSections.has(path);
  }
}

export const catalogIndex = new CatalogIndex(CATALOG as readonly KeySpec[]);

import type { Logger } from 'pino';
import type { EventBus } from '../events/event-bus.js';
import { DeclarativeDirectory } from './declarative-directory.js';
import { readApiFile } from './api-file.js';
import type { ApiDefinition } from './types.js';

/**
 * The APIs written through the admin REST API, as the registry reads them: engine/store's ApiTable (the
 * registry sits below the store, so the store implements this rather than the registry importing it).
 */
export interface StoredApiSource {
  list(): Promise<readonly ApiDefinition[]>;
}

export interface ApiRegistryOptions {
  /** <home>/repository/deployment/server/apis */
  readonly dir: string;
  /** The apim_db store (or a gateway-worker's replica); null: the files only. */
  readonly store: { readonly apis: StoredApiSource } | null;
  readonly bus: EventBus;
  readonly log: Logger;
  /** Rescan of the folder beside the watcher, ms. */
  readonly rescanMs?: number;
}

export type ApisListener = (apis: readonly ApiDefinition[]) => void | Promise<void>;

/**
 * The APIs a node serves: the union of the declarative files (apis/*.toml, hot-deployed) and the APIs in
 * the store (written by the admin REST API; on a gateway-worker, the replica of the control plane's set).
 *
 * Precedence on a clash: the store wins. An API in the store is shared by every node and was written on
 * purpose through the admin API (which refuses ids and contexts a file already defines), so a file that
 * later defines the same name:version, or the same context and version, is not deployed and the log says
 * which API holds it. The store's APIs are reloaded when the event bus says `registry.changed` kind `apis`.
 */
export class ApiRegistry {
  private files: readonly ApiDefinition[] = [];
  private stored: readonly ApiDefinition[] = [];
  private current: readonly ApiDefinition[] = [];
  private readonly listeners = new Set<ApisListener>();
  private readonly shadowed = new Map<string, string>();
  private readonly directory: DeclarativeDirectory<ApiDefinition>;
  private unsubscribe: (() => void) | null = null;
  private chain: Promise<void> = Promise.resolve();
  private started = false;

  constructor(private readonly o: ApiRegistryOptions) {
    this.directory = new DeclarativeDirectory<ApiDefinition>({
      dir: o.dir, kind: 'API', extension: '.toml', parse: readApiFile, identity: (a) => a.id, log: o.log,
      ...(o.rescanMs !== undefined ? { rescanMs: o.rescanMs } : {}),
      onChange: (list) => {
        this.files = list;
        if (this.started) this.enqueue(async () => { await this.recompute(); });
      },
    });
  }

  async start(): Promise<readonly ApiDefinition[]> {
    this.files = this.directory.start();
    if (this.o.store) this.stored = await this.o.store.apis.list();
    this.unsubscribe = this.o.bus.subscribe('registry.changed', async (e) => {
      if (e.kind === 'apis') await this.reload();
    });
    this.started = true;
    this.merge();
    return this.current;
  }

  stop(): void {
    this.directory.stop();
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** The APIs served now, store first. */
  list(): readonly ApiDefinition[] {
    return this.current;
  }

  /** The API a file defines (the admin API refuses to write over it). */
  fileApi(id: string): ApiDefinition | undefined {
    return this.files.find((a) => a.id === id);
  }

  /** A file API serving this context and version, if any. */
  fileApiAt(context: string, version: string): ApiDefinition | undefined {
    return this.files.find((a) => a.context === context && a.version === version);
  }

  /** Called with the full list after every change (awaited by `reload`). */
  onChange(fn: ApisListener): () => void {
    this.listeners.add(fn);
    return () => { this.listeners.delete(fn); };
  }

  /** Reads the store's APIs again and tells the listeners; resolves once they have applied the change. */
  reload(): Promise<void> {
    return this.enqueue(async () => {
      if (this.o.store) this.stored = await this.o.store.apis.list();
      await this.recompute();
    });
  }

  private enqueue(fn: () => Promise<void>): Promise<void> {
    const run = this.chain.then(fn);
    this.chain = run.catch((err: Error) => { this.o.log.error({ err: err.message }, 'API registry update failed'); });
    return run;
  }

  private async recompute(): Promise<void> {
    this.merge();
    const list = this.current;
    for (const l of [...this.listeners]) {
      try { await l(list); } catch (err) { this.o.log.error({ err: (err as Error).message }, 'an API registry listener failed'); }
    }
  }

  /**
   * The union as the store holds it right now (read again), without changing what this node deploys: what
   * a gateway-worker pulling artifacts gets, even while this node's own reload is still on its way.
   */
  async fresh(): Promise<ApiDefinition[]> {
    const stored = this.o.store ? await this.o.store.apis.list() : this.stored;
    return this.union(stored, new Map());
  }

  private merge(): void {
    const nowShadowed = new Map<string, string>();
    const out = this.union(this.stored, nowShadowed);
    for (const [file, why] of nowShadowed) {
      if (this.shadowed.get(file) !== why) this.o.log.warn({ file }, why);
    }
    this.shadowed.clear();
    for (const [k, v] of nowShadowed) this.shadowed.set(k, v);
    this.current = out;
  }

  private union(stored: readonly ApiDefinition[], shadowed: Map<string, string>): ApiDefinition[] {
    const byId = new Set<string>();
    const byPrefix = new Map<string, string>();
    const out: ApiDefinition[] = [];
    for (const a of stored) {
      byId.add(a.id);
      byPrefix.set(`${a.context}/${a.version}`, a.id);
      out.push(a);
    }
    for (const a of this.files) {
      const holder = byId.has(a.id) ? a.id : byPrefix.get(`${a.context}/${a.version}`);
      if (holder !== undefined) {
        shadowed.set(a.source, `${a.source}: API ${a.id} not deployed from the file: ${holder} in the store (admin API) serves ${byId.has(a.id) ? 'the same name and version' : `${a.context}/${a.version}`}`);
        continue;
      }
      byPrefix.set(`${a.context}/${a.version}`, a.id);
      out.push(a);
    }
    return out;
  }
}

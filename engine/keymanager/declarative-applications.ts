import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log/logger.js';
import type { ApplicationDefinition, ApplicationKey } from '../registry/types.js';
import { ApplicationConflictError, type ApimStore } from '../store/index.js';
import { ApplicationFileError, parseApplicationFile } from './application-file.js';
import { hashSecret, verifySecret } from './secret-hash.js';

export interface DeclarativeApplicationsOptions {
  /** <home>/repository/deployment/server/applications */
  readonly dir: string;
  readonly homeRoot: string;
  readonly store: ApimStore;
  readonly log: Logger;
  /** Owner of applications that name none (the super admin). */
  readonly defaultOwner: string;
  /** ms between rescans beside the watcher; 0: no periodic rescan. */
  readonly rescanInterval: number;
  /** Called after a scan changed the registry, with the client ids that went away (their tokens die). */
  readonly onChange: (change: ApplicationsChange) => Promise<void>;
}

export interface ApplicationsChange {
  /** Applications created or replaced. */
  readonly updated: readonly string[];
  readonly removed: readonly string[];
  readonly removedClientIds: readonly string[];
}

interface FileState {
  /** SHA-256 of the content last handled (good or bad), so an unchanged file is not read again. */
  contentHash: string;
  /** The application the file last defined successfully: kept while the file is bad. */
  appName: string | undefined;
  /** Clear-secret digests -> stored hashes, so an unchanged secret is not hashed again. */
  secrets: Map<string, string>;
  lastError: string | undefined;
}

/**
 * The declarative door to the registry: applications/*.toml, registered at start and whenever a file
 * changes (fs.watch, plus a periodic rescan for file systems where watching misses events). A bad file
 * keeps the previous version of its application and logs the file and why (TOML errors with line and
 * column); a removed file removes its application and revokes its tokens. Secrets are hashed before they
 * reach the store.
 */
export class DeclarativeApplications {
  private readonly files = new Map<string, FileState>();
  private running: Promise<void> | undefined;
  private again = false;
  private watcher: fs.FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private stopped = false;
  private firstScan = true;

  constructor(private readonly o: DeclarativeApplicationsOptions) {}

  async start(): Promise<void> {
    try { fs.mkdirSync(this.o.dir, { recursive: true }); } catch { /* reported by the scan */ }
    await this.scan();
    this.watch();
    if (this.o.rescanInterval > 0) {
      this.timer = setInterval(() => { void this.scan(); if (!this.watcher) this.watch(); }, this.o.rescanInterval);
      this.timer.unref();
    }
  }

  stop(): Promise<void> {
    this.stopped = true;
    this.watcher?.close();
    this.watcher = undefined;
    if (this.timer) clearInterval(this.timer);
    if (this.debounce) clearTimeout(this.debounce);
    return this.running ?? Promise.resolve();
  }

  private watch(): void {
    if (this.stopped) return;
    try {
      this.watcher = fs.watch(this.o.dir, { persistent: false }, () => {
        if (this.debounce) clearTimeout(this.debounce);
        this.debounce = setTimeout(() => { void this.scan(); }, 50);
      });
      this.watcher.on('error', (err) => {
        this.o.log.warn({ dir: this.o.dir, err: err.message }, 'watching the applications directory failed; the periodic rescan continues');
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch (err) {
      this.o.log.debug({ dir: this.o.dir, err: (err as Error).message }, 'the applications directory cannot be watched yet');
    }
  }

  /** Scans now (or right after the scan in progress). Resolves when the registry reflects the files. */
  scan(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.scanOnce();
        } while (this.again && !this.stopped);
      } catch (err) {
        this.o.log.error({ err: (err as Error).stack ?? String(err) }, 'scanning the applications directory failed');
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private source(file: string): string {
    const rel = path.relative(this.o.homeRoot, file);
    return rel.startsWith('..') || path.isAbsolute(rel) ? file : rel.split(path.sep).join('/');
  }

  private async scanOnce(): Promise<void> {
    const { log, store } = this.o;
    let names: string[];
    try {
      names = fs.readdirSync(this.o.dir).filter((n) => n.endsWith('.toml') && !n.startsWith('.')).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log.warn({ dir: this.o.dir, err: (err as Error).message }, 'cannot list the applications directory');
      names = [];
    }
    const updated: string[] = [];
    const removed: string[] = [];
    const removedClientIds: string[] = [];
    const present = new Set(names.map((n) => path.join(this.o.dir, n)));

    for (const file of present) {
      let text: string;
      try { text = fs.readFileSync(file, 'utf8'); } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') { present.delete(file); continue; }
        log.error({ file, err: (err as Error).message }, 'application file cannot be read');
        continue;
      }
      const contentHash = crypto.createHash('sha256').update(text).digest('hex');
      let state = this.files.get(file);
      if (state && state.contentHash === contentHash) continue;
      if (!state) { state = { contentHash: '', appName: undefined, secrets: new Map(), lastError: undefined }; this.files.set(file, state); }
      const source = this.source(file);
      try {
        const parsed = parseApplicationFile(text, file, this.o.defaultOwner);
        for (const w of parsed.warnings) log.warn(w);
        const keys: ApplicationKey[] = [];
        const secrets = new Map<string, string>();
        for (const k of parsed.keys) {
          let hash = k.clientSecretHash;
          if (k.clientSecret !== undefined) {
            const digest = crypto.createHash('sha256').update(`${k.clientId}\0${k.clientSecret}`).digest('hex');
            hash = state.secrets.get(digest);
            if (!hash) {
              const current = await store.applications.findByClientId(k.clientId);
              if (current && current.app.source === source && (await verifySecret(k.clientSecret, current.key.clientSecretHash))) hash = current.key.clientSecretHash;
            }
            hash ??= await hashSecret(k.clientSecret);
            secrets.set(digest, hash);
          }
          keys.push({
            keyType: k.keyType, clientId: k.clientId, clientSecretHash: hash!, grantTypes: k.grantTypes, scopes: k.scopes,
            ...(k.callbackUrl ? { callbackUrl: k.callbackUrl } : {}),
            ...(k.keyManager ? { keyManager: k.keyManager } : {}),
          });
        }
        const def: ApplicationDefinition = {
          name: parsed.name, owner: parsed.owner, throttlingPolicy: parsed.throttlingPolicy, tokenType: parsed.tokenType,
          keys, subscriptions: parsed.subscriptions, source,
        };
        if (state.appName !== undefined && state.appName !== def.name) {
          const gone = await store.applications.delete(state.appName);
          if (gone) { removed.push(state.appName); removedClientIds.push(...gone); }
        }
        const r = await store.applications.put(def);
        removedClientIds.push(...r.removedClientIds);
        updated.push(def.name);
        state.appName = def.name;
        state.secrets = secrets;
        state.contentHash = contentHash;
        state.lastError = undefined;
        log.info({ file: source, application: def.name, keys: keys.length, subscriptions: def.subscriptions.length }, 'application deployed');
      } catch (err) {
        const why = err instanceof ApplicationFileError || err instanceof ApplicationConflictError ? err.message : `${(err as Error).message}`;
        // A conflict may clear when another file changes: try this file again on the next scan.
        if (!(err instanceof ApplicationConflictError)) state.contentHash = contentHash;
        if (state.lastError !== why) {
          log.error({ file: source, ...(err instanceof ApplicationFileError && err.line !== undefined ? { line: err.line, column: err.column } : {}) },
            `application file not deployed: ${why}${state.appName ? `; application "${state.appName}" keeps its previous version` : ''}`);
        }
        state.lastError = why;
        if (!(err instanceof ApplicationFileError || err instanceof ApplicationConflictError)) throw err;
      }
    }

    for (const [file, state] of [...this.files]) {
      if (present.has(file)) continue;
      this.files.delete(file);
      if (!state.appName) continue;
      const current = await store.applications.get(state.appName);
      if (!current || current.source !== this.source(file)) continue;
      const gone = await store.applications.delete(state.appName);
      if (gone) {
        removed.push(state.appName);
        removedClientIds.push(...gone);
        log.info({ file: this.source(file), application: state.appName }, 'application removed with its file');
      }
    }

    if (this.firstScan) {
      // Files deleted while Sluice was stopped: their applications are still in the store.
      this.firstScan = false;
      const prefix = this.source(this.o.dir) + '/';
      for (const app of await store.applications.list()) {
        if (!app.source.startsWith(prefix) || [...present].some((f) => this.source(f) === app.source)) continue;
        const gone = await store.applications.delete(app.name);
        if (gone) {
          removed.push(app.name);
          removedClientIds.push(...gone);
          log.info({ file: app.source, application: app.name }, 'application removed: its file is gone');
        }
      }
    }

    if (updated.length || removed.length || removedClientIds.length) {
      await this.o.onChange({ updated, removed, removedClientIds });
    }
  }
}

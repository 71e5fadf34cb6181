import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';

export interface DeclarativeDirectoryOptions<T> {
  readonly dir: string;
  /** What the files hold, for log lines ("API", "application", "policy file"). */
  readonly kind: string;
  readonly extension: string;
  readonly parse: (file: string) => T;
  /** Two files may not define the same thing: the second is refused and logged. */
  readonly identity: (item: T) => string;
  readonly log: Logger;
  /** Called after the initial load and after each settled batch of changes, with the full set. */
  readonly onChange: (items: readonly T[]) => void;
  readonly debounceMs?: number;
  /** fs.watch misses events on some file systems: a periodic rescan catches up. */
  readonly rescanMs?: number;
}

interface Entry<T> {
  readonly mtimeMs: number;
  readonly size: number;
  /** The last version that parsed; kept when a later edit does not. */
  readonly item: T | undefined;
}

/**
 * Hot deployment of one folder of declarative files: a changed file is parsed again; a file that does not
 * parse keeps its previous version and the log says why; a deleted file is undeployed.
 */
export class DeclarativeDirectory<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private watcher: fs.FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private rescanTimer: NodeJS.Timeout | null = null;

  constructor(private readonly o: DeclarativeDirectoryOptions<T>) {}

  /** Loads every file now and starts watching. Returns the initial set. */
  start(): readonly T[] {
    fs.mkdirSync(this.o.dir, { recursive: true });
    this.scan(true);
    try {
      this.watcher = fs.watch(this.o.dir, () => this.schedule());
      this.watcher.on('error', (err) => this.o.log.warn({ dir: this.o.dir, err: err.message }, 'watching stopped; periodic rescans continue'));
    } catch (err) {
      this.o.log.warn({ dir: this.o.dir, err: (err as Error).message }, 'cannot watch; periodic rescans only');
    }
    this.rescanTimer = setInterval(() => this.scan(false), this.o.rescanMs ?? 5000);
    this.rescanTimer.unref();
    return this.items();
  }

  stop(): void {
    this.watcher?.close();
    this.watcher = null;
    if (this.timer) clearTimeout(this.timer);
    if (this.rescanTimer) clearInterval(this.rescanTimer);
  }

  items(): T[] {
    const out: T[] = [];
    for (const e of this.entries.values()) if (e.item !== undefined) out.push(e.item);
    return out;
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.timer = null; this.scan(false); }, this.o.debounceMs ?? 150);
  }

  /** Compares the folder with what is deployed and applies the difference. */
  scan(initial: boolean): void {
    let names: string[];
    try {
      names = fs.readdirSync(this.o.dir).filter((n) => n.endsWith(this.o.extension) && !n.startsWith('.')).sort();
    } catch (err) {
      this.o.log.error({ dir: this.o.dir, err: (err as Error).message }, `cannot read the ${this.o.kind} folder`);
      return;
    }
    let changed = initial;
    const present = new Set<string>();
    for (const name of names) {
      const file = path.join(this.o.dir, name);
      present.add(file);
      let st: fs.Stats;
      try { st = fs.statSync(file); } catch { continue; }
      if (!st.isFile()) continue;
      const prev = this.entries.get(file);
      if (prev && prev.mtimeMs === st.mtimeMs && prev.size === st.size) continue;
      changed = true;
      try {
        const item = this.o.parse(file);
        const id = this.o.identity(item);
        const clash = [...this.entries].find(([f, e]) => f !== file && e.item !== undefined && this.o.identity(e.item) === id);
        if (clash) throw new Error(`${this.o.kind} ${id} is already defined in ${clash[0]}`);
        this.entries.set(file, { mtimeMs: st.mtimeMs, size: st.size, item });
        this.o.log.info({ file }, `${this.o.kind} deployed: ${id}`);
      } catch (err) {
        this.entries.set(file, { mtimeMs: st.mtimeMs, size: st.size, item: prev?.item });
        this.o.log.error({ file }, `${this.o.kind} not deployed: ${(err as Error).message}${prev?.item !== undefined ? ' (the previous version stays deployed)' : ''}`);
      }
    }
    for (const file of [...this.entries.keys()]) {
      if (present.has(file)) continue;
      const gone = this.entries.get(file)!;
      this.entries.delete(file);
      changed = true;
      if (gone.item !== undefined) this.o.log.info({ file }, `${this.o.kind} undeployed: ${this.o.identity(gone.item)}`);
    }
    if (changed) this.o.onChange(this.items());
  }
}

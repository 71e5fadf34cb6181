/**
 * Main thread: the deployed set of sequences, from the files of the sequences directory plus the built-in
 * defaults of the shipped names. Hot deployment: add, change and delete take effect on the next scan (a
 * watcher with debounce, and a periodic rescan as a safety net); each change yields a new SequenceSet to post
 * to the io threads.
 *
 * A file that does not parse, or fails the checks across files (a `sequence key` naming nothing deployed, a
 * cycle of references, a name another file already deploys) is not deployed: the previous version of that
 * file stays deployed, and a log line gives file, line and why. Deleting a shipped sequence's file restores
 * its built-in default.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { SHIPPED_SEQUENCE_NAMES } from '../errors/fault-sequences.js';
import type { MediatorAst, SequenceAst } from './ast.js';
import { SequenceDeployError } from './errors.js';
import { parseSequence } from './parse.js';
import { builtinSequenceAsts, type SequenceSet } from './registry.js';

export interface RepositoryOptions {
  /** The sequences directory; null: built-in defaults only. */
  readonly dir: string | null;
  readonly logger: Logger;
}

export interface WatchOptions {
  /** Quiet time after a file event before the directory is scanned. Default 200 ms. */
  readonly debounceMs?: number;
  /** Periodic rescan (a missed event, a directory that appears later). Default 5000 ms; 0: none. */
  readonly rescanIntervalMs?: number;
}

export interface SequenceWatcher {
  close(): void;
}

interface FileState {
  /** The text last read (to notice a change whatever the mtime granularity). */
  text: string;
  /** The sequence of the current text when it parses; null when it does not. */
  parsed: SequenceAst | null;
  /** Deployed from this file (the current or an earlier version); null when none is. */
  deployed: SequenceAst | null;
  /** Why the current text is not what is deployed. */
  error: SequenceDeployError | null;
  /** The last problem logged for this file, so a periodic rescan does not repeat it. */
  logged: string | null;
}

const SHIPPED = new Set<string>(SHIPPED_SEQUENCE_NAMES);

export class SequenceRepository {
  private readonly files = new Map<string, FileState>();
  private generationValue = 0;
  private effective = new Map<string, SequenceAst>();
  private readonly log: Logger;

  constructor(private readonly options: RepositoryOptions) {
    this.log = options.logger.child({ component: 'mediation' });
    this.effective = this.buildEffective(new Map());
  }

  get dir(): string | null { return this.options.dir; }
  get generation(): number { return this.generationValue; }

  /** The deployed sequence of that name (a file's, or the built-in default). */
  get(name: string): SequenceAst | undefined { return this.effective.get(name); }

  /** Files that are not deployed as they are now, with why. */
  errors(): SequenceDeployError[] {
    const out: SequenceDeployError[] = [];
    for (const s of this.files.values()) if (s.error) out.push(s.error);
    return out;
  }

  /** The deployed set as plain data, for postMessage to io threads. */
  snapshot(): SequenceSet {
    return { generation: this.generationValue, sequences: [...this.effective.values()] };
  }

  /**
   * Reads the directory and applies what changed. Synchronous (deploy time, main thread). Returns whether the
   * deployed set changed. Never throws for a bad file.
   */
  rescan(): boolean {
    const present = this.listFiles();
    const previous = new Map<string, SequenceAst>();
    for (const [file, st] of this.files) if (st.deployed) previous.set(file, st.deployed);

    const next = new Map(previous);
    for (const file of [...this.files.keys()]) {
      if (!present.has(file)) { this.files.delete(file); next.delete(file); }
    }
    for (const [file, text] of present) {
      let st = this.files.get(file);
      if (st && st.text === text) continue;
      st ??= { text, parsed: null, deployed: null, error: null, logged: null };
      st.text = text;
      this.files.set(file, st);
      try {
        st.parsed = parseSequence(text, file);
        st.error = null;
        if (st.parsed.name !== path.basename(file, '.xml')) {
          this.log.warn({ file, sequence: st.parsed.name }, `sequence name "${st.parsed.name}" differs from the file name; deployed as ${st.parsed.name}`);
        }
      } catch (err) {
        st.parsed = null;
        st.error = err instanceof SequenceDeployError ? err : new SequenceDeployError(file, 0, '', (err as Error).message);
        this.reportNotDeployed(st, st.error, st.deployed !== null);
      }
    }
    // Candidates: every file whose current text parses but is not what is deployed (changed files, and
    // files that failed the cross-file checks before: what they reference may be deployed now).
    const changed = new Set<string>();
    for (const [file, st] of this.files) {
      if (st.parsed && st.parsed !== st.deployed) { next.set(file, st.parsed); changed.add(file); }
    }
    this.settle(next, changed, previous);
    return this.commit(next, previous);
  }

  /** Cross-file checks; a failing file goes back to its previous version (or out). Repeats until clean. */
  private settle(next: Map<string, SequenceAst>, changed: Set<string>, previous: ReadonlyMap<string, SequenceAst>): void {
    for (let guard = 0; guard < 1000; guard++) {
      const problems = this.crossFileProblems(next, changed);
      if (problems.length === 0) return;
      for (const p of problems) {
        const state = this.files.get(p.file);
        if (!state) continue;
        state.error = p;
        const prev = previous.get(p.file);
        if (changed.has(p.file) && prev) {
          next.set(p.file, prev);
          changed.delete(p.file);
          this.reportNotDeployed(state, p, true);
        } else {
          next.delete(p.file);
          changed.delete(p.file);
          this.reportNotDeployed(state, p, false);
        }
      }
    }
  }

  private crossFileProblems(next: ReadonlyMap<string, SequenceAst>, changed: ReadonlySet<string>): SequenceDeployError[] {
    const problems = new Map<string, SequenceDeployError>();
    // Two files deploying one name: the changed one (or the later file name) loses.
    const owner = new Map<string, string>();
    for (const file of [...next.keys()].sort((a, b) => Number(changed.has(a)) - Number(changed.has(b)) || a.localeCompare(b))) {
      const ast = next.get(file)!;
      const other = owner.get(ast.name);
      if (other !== undefined) {
        problems.set(file, new SequenceDeployError(file, ast.line, 'sequence', `sequence "${ast.name}" is already deployed from ${other}`));
      } else {
        owner.set(ast.name, file);
      }
    }
    if (problems.size) return [...problems.values()];
    const effective = this.buildEffective(next);
    for (const [file, ast] of next) {
      for (const ref of ast.refs) {
        if (!effective.has(ref)) {
          problems.set(file, new SequenceDeployError(file, refLine(ast, ref), 'sequence',
            `sequence key "${ref}" names no deployed sequence (deploy that sequence first)`));
          break;
        }
      }
    }
    if (problems.size) return [...problems.values()];
    for (const cycle of findCycles(effective)) {
      const files = cycle.slice(0, -1).map((name) => effective.get(name)!.file).filter((f) => next.has(f));
      const blamed = files.filter((f) => changed.has(f));
      for (const file of blamed.length ? blamed : files) {
        const ast = next.get(file)!;
        // The cycle as seen from this sequence: name -> ... -> name.
        const ring = cycle.slice(0, -1);
        const at = ring.indexOf(ast.name);
        const fromHere = [...ring.slice(at), ...ring.slice(0, at), ast.name];
        problems.set(file, new SequenceDeployError(file, refLine(ast, fromHere[1]!), 'sequence',
          `cycle of sequence references: ${fromHere.join(' -> ')}`));
      }
    }
    return [...problems.values()];
  }

  /** Built-in defaults overlaid by the files' sequences, by name. */
  private buildEffective(fileAsts: ReadonlyMap<string, SequenceAst>): Map<string, SequenceAst> {
    const eff = new Map<string, SequenceAst>(builtinSequenceAsts());
    for (const ast of fileAsts.values()) eff.set(ast.name, ast);
    return eff;
  }

  private commit(next: Map<string, SequenceAst>, previous: ReadonlyMap<string, SequenceAst>): boolean {
    let changedSet = false;
    for (const [file, ast] of next) {
      const state = this.files.get(file)!;
      if (previous.get(file) !== ast) {
        changedSet = true;
        this.log.info({ file, sequence: ast.name }, `sequence deployed: ${ast.name} (${file})`);
      }
      state.deployed = ast;
      if (ast === state.parsed) { state.error = null; state.logged = null; }
    }
    for (const [file, ast] of previous) {
      if (next.has(file)) continue;
      changedSet = true;
      const state = this.files.get(file);
      if (state) state.deployed = null;
      if (!next.has(file) && ![...next.values()].some((a) => a.name === ast.name)) {
        this.log.info({ file, sequence: ast.name }, SHIPPED.has(ast.name)
          ? `sequence undeployed: ${ast.name} (${file}); the built-in default ${ast.name} is deployed instead`
          : `sequence undeployed: ${ast.name} (${file})`);
      }
    }
    if (changedSet) {
      this.effective = this.buildEffective(next);
      this.generationValue++;
    }
    return changedSet;
  }

  private reportNotDeployed(state: FileState, e: SequenceDeployError, keptPrevious: boolean): void {
    const text = `sequence not deployed: ${e.message}${keptPrevious ? '; the previous version stays deployed' : ''}`;
    if (state.logged === text) return;
    state.logged = text;
    this.log.error({ file: e.file, line: e.line, element: e.element || undefined }, text);
  }

  /** *.xml files of the directory with their text; unreadable files are skipped with a warning. */
  private listFiles(): Map<string, string> {
    const out = new Map<string, string>();
    const dir = this.options.dir;
    if (!dir) return out;
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.log.warn({ dir }, `cannot read the sequences directory: ${(err as Error).message}`);
      return out;
    }
    for (const name of names.sort()) {
      if (!name.endsWith('.xml') || name.startsWith('.')) continue;
      const file = path.join(dir, name);
      try {
        const st = fs.statSync(file);
        if (!st.isFile()) continue;
        out.set(file, fs.readFileSync(file, 'utf8'));
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT') this.log.warn({ file }, `cannot read sequence file: ${(err as Error).message}`);
      }
    }
    return out;
  }

  /**
   * Watches the directory: on each change of the deployed set, `onChange` gets the new set (post it to the io
   * threads). Call rescan() first for the initial set.
   */
  watch(onChange: (set: SequenceSet) => void, options: WatchOptions = {}): SequenceWatcher {
    const dir = this.options.dir;
    const debounceMs = options.debounceMs ?? 200;
    const rescanMs = options.rescanIntervalMs ?? 5000;
    let timer: NodeJS.Timeout | null = null;
    let watcher: fs.FSWatcher | null = null;
    let closed = false;

    const scan = (): void => {
      timer = null;
      if (closed) return;
      ensureWatcher();
      let changed = false;
      try {
        changed = this.rescan();
      } catch (err) {
        this.log.error({ dir }, `sequence scan failed: ${(err as Error).message}`);
      }
      if (changed) onChange(this.snapshot());
    };
    const schedule = (): void => {
      if (closed) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(scan, debounceMs);
    };
    const ensureWatcher = (): void => {
      if (watcher || !dir || closed) return;
      try {
        watcher = fs.watch(dir, { persistent: false }, schedule);
        watcher.on('error', (err) => {
          this.log.warn({ dir }, `sequence directory watcher failed (${err.message}); relying on the periodic rescan`);
          watcher?.close();
          watcher = null;
        });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.log.warn({ dir }, `cannot watch the sequences directory: ${(err as Error).message}`);
      }
    };
    ensureWatcher();
    const interval = rescanMs > 0 ? setInterval(scan, rescanMs) : null;
    interval?.unref();
    return {
      close: () => {
        closed = true;
        if (timer) clearTimeout(timer);
        if (interval) clearInterval(interval);
        watcher?.close();
        watcher = null;
      },
    };
  }
}

/** The line of the first mediator in `ast` that references `key` (the root's line for onError). */
function refLine(ast: SequenceAst, key: string): number {
  const walk = (list: readonly MediatorAst[]): number => {
    for (const m of list) {
      if (m.kind === 'sequence' && m.key === key) return m.line;
      let inner: readonly (readonly MediatorAst[])[] = [];
      if (m.kind === 'filter') inner = [m.then, m.else];
      else if (m.kind === 'switch') inner = [...m.cases.map((c) => c.body), m.default];
      else if (m.kind === 'in' || m.kind === 'out') inner = [m.body];
      for (const l of inner) { const found = walk(l); if (found) return found; }
    }
    return 0;
  };
  return walk(ast.body) || ast.line;
}

/** Every elementary cycle found by DFS over `sequence key` references, as [a, b, ..., a]. */
export function findCycles(seqs: ReadonlyMap<string, SequenceAst>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 1 | 2>(); // 1: on the stack, 2: done
  const stack: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string): void => {
    state.set(name, 1);
    stack.push(name);
    for (const ref of seqs.get(name)?.refs ?? []) {
      if (!seqs.has(ref)) continue;
      const s = state.get(ref);
      if (s === 1) {
        const cycle = [...stack.slice(stack.indexOf(ref)), ref];
        const key = [...cycle.slice(0, -1)].sort().join('\u0000');
        if (!seen.has(key)) { seen.add(key); cycles.push(cycle); }
      } else if (s === undefined) {
        visit(ref);
      }
    }
    stack.pop();
    state.set(name, 2);
  };
  for (const name of [...seqs.keys()].sort()) if (!state.has(name)) visit(name);
  return cycles;
}

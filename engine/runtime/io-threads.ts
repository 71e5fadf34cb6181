import fs from 'node:fs';
import net from 'node:net';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { ApiDefinition } from '../registry/types.js';
import type { SequenceSet } from '../../mediation/index.js';
import type { FromIoThread, IoThreadData, ToIoThread } from '../gateway/io-thread-protocol.js';
import type { TelemetryBatch } from '../gateway/telemetry/types.js';
import { releaseColumns } from '../gateway/telemetry/call-columns.js';

/**
 * The worker script: next to this module when compiled. Under the test runner (TypeScript sources), the
 * compiled script when `npm run build` made one, started without the runner's loaders (much faster), else
 * the .ts source with them.
 */
function ioThreadEntry(): { url: URL; execArgv: string[] | undefined } {
  if (!import.meta.url.endsWith('.ts')) return { url: new URL('../gateway/io-thread.js', import.meta.url), execArgv: undefined };
  const compiled = new URL('../../dist/engine/gateway/io-thread.js', import.meta.url);
  if (fs.existsSync(compiled)) return { url: compiled, execArgv: [] };
  return { url: new URL('../gateway/io-thread.ts', import.meta.url), execArgv: undefined };
}

/**
 * Fails with a clear message when something listens on the port already: another Sluice's io threads
 * would share it silently (SO_REUSEPORT, front-door.ts), and the kernel would spread the clients between
 * the two. Asked by connecting, not by listening: a check that listened for a moment (until 2026-11-28)
 * let a client that connected in that moment take the port for open and then have its connection reset,
 * before the io threads listened for real (a health check, or a test waiting for the port). A refused
 * connection means free; any other failure (no such address) is left for the listen to report.
 */
export async function assertPortFree(host: string, port: number): Promise<void> {
  const target = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const listening = await new Promise<boolean>((resolve) => {
    const s = net.connect({ host: target, port });
    s.setTimeout(PORT_CHECK_TIMEOUT_MS, () => { s.destroy(); resolve(false); });
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => { s.destroy(); resolve(false); });
  });
  if (listening) throw new Error(`port ${port} on ${host} is already in use (another Sluice, or another server?)`);
}

/** How long the port check waits for an answer (a filtered address never answers). */
const PORT_CHECK_TIMEOUT_MS = 2000;

interface ThreadHandle {
  readonly worker: Worker;
  readonly index: number;
}

/** Builds an io thread's workerData afresh (current APIs, sequences and shared state): for a restart. */
export type IoThreadDataSource = (index: number) => Promise<IoThreadData>;

/** Restarts of one io thread in a row before it is left down (each waits a little longer). */
const MAX_RESTARTS = 5;
const RESTART_DELAY_MS = 500;

/**
 * The gateway's io threads, seen from the main thread: start them, push deployments to all of them and
 * wait until each applied it, stop them gracefully. An io thread that dies after the start (a bug: an
 * exception nothing caught) is restarted from fresh data; meanwhile broadcasts skip it rather than wait for
 * an acknowledgement that will never come, and `down` tells the readiness probe.
 */
export class IoThreads {
  private readonly threads: ThreadHandle[] = [];
  private ackSeq = 0;
  /** Per broadcast, the threads that have not acknowledged it yet. */
  private readonly acks = new Map<number, { pending: Set<number>; resolve: () => void }>();
  private stopped = false;
  private source: IoThreadDataSource | null = null;
  private readonly restarting = new Set<number>();
  /**
   * Per io thread being restarted: the broadcasts sent since its fresh data was read. The data is a
   * snapshot taken before the thread exists, and a broadcast meanwhile (a revocation, a deployment) skips
   * it; these are posted to the new thread first, so it misses none of them.
   */
  private readonly missed = new Map<number, ToIoThread[]>();
  private readonly extensionHandlers = new Map<string, (payload: unknown, thread: number) => void>();

  /** Messages an io thread sends to a main-thread extension (by name). */
  onExtensionMessage(name: string, handler: (payload: unknown, thread: number) => void): void {
    this.extensionHandlers.set(name, handler);
  }
  /** Receives the io threads' telemetry batches (engine/operations/telemetry-hub.ts). */
  onTelemetry: ((batch: TelemetryBatch) => void) | null = null;

  constructor(private readonly log: Logger) {}

  /** Starts one thread per data; `source` rebuilds a thread's data when it must be restarted. */
  async start(datas: readonly IoThreadData[], source: IoThreadDataSource): Promise<{ http?: number; https?: number }> {
    this.source = source;
    const ports = await Promise.all(datas.map((d) => this.spawn(d)));
    return ports[0] ?? {};
  }

  /** io threads that died since start (each death counts once, whatever the attempts to restart it took). */
  deaths = 0;

  /** io threads that died and are not (yet) running again. */
  get down(): readonly number[] {
    return [...this.restarting];
  }

  /**
   * One worker; resolves when it listens. A death after that is handled by `onDeath`. `missed`: broadcasts
   * sent after `data` was read, posted before any later one (the worker reads them once it has started).
   */
  private spawn(data: IoThreadData, missed: readonly ToIoThread[] = []): Promise<{ http?: number; https?: number }> {
    const entry = ioThreadEntry();
    // The young generation bounds the thread's short-lived garbage: V8's default lets it grow to 48 MiB under
    // load, which a call's few KB of garbage do not need (docs/tuning.md).
    const worker = new Worker(entry.url, {
      workerData: data,
      name: `io-${data.gateway.index}`,
      resourceLimits: { maxYoungGenerationSizeMb: data.gateway.passthru.ioThreadYoungGenerationMb },
      ...(entry.execArgv ? { execArgv: entry.execArgv } : {}),
    });
    const handle = { worker, index: data.gateway.index };
    for (const m of missed) worker.postMessage(m);
    this.threads.push(handle);
    return new Promise((resolve, reject) => {
      let ready = false;
      let failed = false;
      worker.on('message', (m: FromIoThread): void => {
        if (m.type === 'ready') { ready = true; resolve(m.ports); }
        else if (m.type === 'fatal') reject(new Error(m.message));
        else if (m.type === 'failed') {
          // It stops itself; broadcasts stop waiting for it now.
          failed = true;
          this.forget(handle);
          this.restarting.add(handle.index);
          this.log.error({ thread: handle.index, err: m.message }, 'io thread failed; it is stopping and will be restarted');
        } else if (m.type === 'stopped' && failed) void worker.terminate();
        else if (m.type === 'ack') this.onAck(m.ack, handle.index);
        else if (m.type === 'extension') this.extensionHandlers.get(m.name)?.(m.payload, handle.index);
        else if (m.type === 'telemetry') {
          try {
            this.onTelemetry?.(m.batch);
          } finally {
            // Whatever the consumers did with it, they read the columns synchronously: the io thread may
            // write that memory again.
            if (m.batch.calls !== null) releaseColumns(m.batch.calls);
          }
        }
      });
      worker.on('error', (err) => {
        if (!ready) reject(err);
        else this.log.error({ thread: handle.index, err: err.message, stack: err.stack }, 'io thread failed');
      });
      worker.once('exit', (code) => {
        this.forget(handle);
        if (this.stopped) return;
        if (!ready && !failed) { reject(new Error(`io thread ${handle.index} exited with code ${code}`)); return; }
        this.onDeath(handle.index, code);
      });
    });
  }

  /** Drops a thread from the broadcasts, and from every acknowledgement still awaited. */
  private forget(handle: ThreadHandle): void {
    const i = this.threads.indexOf(handle);
    if (i >= 0) this.threads.splice(i, 1);
    for (const [ack, a] of this.acks) {
      if (a.pending.delete(handle.index) && a.pending.size === 0) { this.acks.delete(ack); a.resolve(); }
    }
  }

  private onDeath(index: number, code: number): void {
    this.deaths++;
    this.log.error({ thread: index, code }, 'io thread exited; restarting it');
    this.restarting.add(index);
    void this.restart(index, 1);
  }

  private async restart(index: number, attempt: number): Promise<void> {
    await new Promise((r) => setTimeout(r, RESTART_DELAY_MS * attempt));
    if (this.stopped) return;
    const missed: ToIoThread[] = [];
    this.missed.set(index, missed);
    try {
      const data = await this.source!(index);
      this.missed.delete(index);
      await this.spawn(data, missed);
      this.restarting.delete(index);
      this.log.info({ thread: index, attempt }, 'io thread restarted');
    } catch (err) {
      this.missed.delete(index);
      if (this.stopped) return;
      if (attempt >= MAX_RESTARTS) {
        this.log.fatal({ thread: index, err: (err as Error).message }, `io thread could not be restarted after ${MAX_RESTARTS} attempts; it stays down`);
        return;
      }
      this.log.error({ thread: index, attempt, err: (err as Error).message }, 'io thread restart failed; trying again');
      await this.restart(index, attempt + 1);
    }
  }

  private onAck(ack: number, index: number): void {
    const a = this.acks.get(ack);
    if (!a) return;
    if (a.pending.delete(index) && a.pending.size === 0) { this.acks.delete(ack); a.resolve(); }
  }

  /** Sends to every running thread; resolves when each has applied it (or died). */
  private broadcast(make: (ack: number) => ToIoThread): Promise<void> {
    const ack = ++this.ackSeq;
    const msg = make(ack);
    // A thread's acknowledgement of a replayed message is not awaited: its broadcast did not include it.
    if (msg.type !== 'flush') for (const list of this.missed.values()) list.push(msg);
    if (this.threads.length === 0) return Promise.resolve();
    const pending = new Set(this.threads.map((t) => t.index));
    const done = new Promise<void>((resolve) => this.acks.set(ack, { pending, resolve }));
    for (const t of this.threads) t.worker.postMessage(msg);
    return done;
  }

  /** A new value of a shared state key, applied by every io thread before this resolves. */
  pushState(key: string, value: unknown): Promise<void> {
    return this.broadcast((ack) => ({ type: 'state', key, value, ack }));
  }

  /** Every thread sends the telemetry it holds (a /metrics scrape); resolves when all did, or after `timeoutMs`. */
  flushTelemetry(timeoutMs: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      this.broadcast((ack) => ({ type: 'flush', ack })),
      new Promise<void>((resolve) => { timer = setTimeout(resolve, timeoutMs); }),
    ]).finally(() => clearTimeout(timer));
  }

  deploySequences(set: SequenceSet): Promise<void> {
    return this.broadcast((ack) => ({ type: 'sequences', set, ack }));
  }

  deployApis(apis: readonly ApiDefinition[]): Promise<void> {
    return this.broadcast((ack) => ({ type: 'apis', apis, ack }));
  }

  /** Graceful stop of every thread: calls in flight finish up to the deadline. */
  async stop(deadlineMs: number): Promise<void> {
    this.stopped = true;
    await Promise.all(this.threads.map((t) => new Promise<void>((resolve) => {
      const timer = setTimeout(() => { void t.worker.terminate().then(() => resolve()); }, deadlineMs + 2000);
      t.worker.on('message', (m: FromIoThread) => {
        if (m.type === 'stopped') { clearTimeout(timer); void t.worker.terminate().then(() => resolve()); }
      });
      t.worker.once('exit', () => { clearTimeout(timer); resolve(); });
      t.worker.postMessage({ type: 'stop', deadlineMs } satisfies ToIoThread);
    })));
  }

  get size(): number {
    return this.threads.length;
  }
}

import fs from 'node:fs';
import net from 'node:net';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { ApiDefinition } from '../registry/types.js';
import type { SequenceSet } from '../../mediation/index.js';
import type { FromIoThread, IoThreadData, ToIoThread } from '../gateway/io-thread-protocol.js';

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

/** Fails with a clear message when another process holds the port (uWS would share it silently). */
export async function assertPortFree(host: string, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      reject(new Error(err.code === 'EADDRINUSE'
        ? `port ${port} on ${host} is already in use (another Sluice, or another server?)`
        : `cannot listen on ${host}:${port}: ${err.message}`));
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

interface ThreadHandle {
  readonly worker: Worker;
  readonly index: number;
}

/**
 * The gateway's io threads, seen from the main thread: start them, push deployments to all of them and
 * wait until each applied it, stop them gracefully.
 */
export class IoThreads {
  private readonly threads: ThreadHandle[] = [];
  private ackSeq = 0;
  private readonly acks = new Map<number, { left: number; resolve: () => void }>();
  private stopped = false;
  private readonly extensionHandlers = new Map<string, (payload: unknown, thread: number) => void>();

  /** Messages an io thread sends to a main-thread extension (by name). */
  onExtensionMessage(name: string, handler: (payload: unknown, thread: number) => void): void {
    this.extensionHandlers.set(name, handler);
  }

  constructor(private readonly log: Logger) {}

  async start(datas: readonly IoThreadData[]): Promise<{ http?: number; https?: number }> {
    const ready: Promise<{ http?: number; https?: number }>[] = [];
    for (const data of datas) {
      const entry = ioThreadEntry();
      const worker = new Worker(entry.url, { workerData: data, name: `io-${data.gateway.index}`, ...(entry.execArgv ? { execArgv: entry.execArgv } : {}) });
      const handle = { worker, index: data.gateway.index };
      this.threads.push(handle);
      ready.push(new Promise((resolve, reject) => {
        const onMessage = (m: FromIoThread): void => {
          if (m.type === 'ready') resolve(m.ports);
          else if (m.type === 'fatal') reject(new Error(m.message));
          else if (m.type === 'ack') this.onAck(m.ack);
          else if (m.type === 'extension') this.extensionHandlers.get(m.name)?.(m.payload, handle.index);
        };
        worker.on('message', onMessage);
        worker.once('error', (err) => reject(err));
        worker.once('exit', (code) => {
          if (!this.stopped) {
            this.log.fatal({ thread: handle.index, code }, 'io thread exited unexpectedly');
            reject(new Error(`io thread ${handle.index} exited with code ${code}`));
          }
        });
      }));
    }
    const ports = await Promise.all(ready);
    return ports[0] ?? {};
  }

  private onAck(ack: number): void {
    const a = this.acks.get(ack);
    if (!a) return;
    if (--a.left === 0) { this.acks.delete(ack); a.resolve(); }
  }

  /** Sends to every thread; resolves when every thread has applied it. */
  private broadcast(make: (ack: number) => ToIoThread): Promise<void> {
    if (this.threads.length === 0) return Promise.resolve();
    const ack = ++this.ackSeq;
    const done = new Promise<void>((resolve) => this.acks.set(ack, { left: this.threads.length, resolve }));
    const msg = make(ack);
    for (const t of this.threads) t.worker.postMessage(msg);
    return done;
  }

  /** A new value of a shared state key, applied by every io thread before this resolves. */
  pushState(key: string, value: unknown): Promise<void> {
    return this.broadcast((ack) => ({ type: 'state', key, value, ack }));
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

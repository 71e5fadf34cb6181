import net from 'node:net';
import { Pool } from 'undici';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const bump = (rec: Record<string, number>, key: string, n = 1): void => { rec[key] = (rec[key] ?? 0) + n; };

// ---------------------------------------------------------------------------------------------------------
// Calls to an API whose backend fails: every answer must be the documented fault.

export interface FaultExpectation {
  /** HTTP status the gateway must answer with. */
  readonly status: number;
  /** fault.code values accepted (base + protocol state, docs/errors.md). */
  readonly codes: readonly number[];
}

export interface FaultClientStats {
  readonly name: string;
  readonly targetRate: number;
  readonly concurrency: number;
  sent: number;
  /** Answers with the expected status and a JSON body whose fault.code is expected. */
  ok: number;
  /** Calls not sent because `concurrency` calls were already waiting (the client's own limit, not an error). */
  skipped: number;
  /** `<status> <fault.code>` of every answer. */
  answers: Record<string, number>;
  /** Gateway-caused: an unexpected status or body, a socket error, no answer within the client timeout. */
  bad: Record<string, number>;
  /** Client connections closed by the gateway (undici 'disconnect'), by reason: informational. */
  disconnects: Record<string, number>;
  maxLatencyMs: number;
}

/**
 * Keep-alive calls (undici Pool, `concurrency` connections) at `rate` per second to one gateway path,
 * each answer checked against `expect`. A hang longer than `timeoutMs` counts as bad.
 */
export class FaultClient {
  readonly stats: FaultClientStats;
  private readonly pool: Pool;
  private inflight = 0;
  private timer: NodeJS.Timeout | null = null;
  private idle: Array<() => void> = [];

  constructor(name: string, origin: string, private readonly path: string, rate: number, concurrency: number,
    private readonly expect: FaultExpectation, timeoutMs: number) {
    this.stats = { name, targetRate: rate, concurrency, sent: 0, ok: 0, skipped: 0, answers: {}, bad: {}, disconnects: {}, maxLatencyMs: 0 };
    // keepAliveTimeout well under the gateway's idle timeout, so that an idle connection is never reused just
    // as the gateway closes it (that race would be the client's, not the gateway's).
    this.pool = new Pool(origin, { connections: concurrency, pipelining: 1, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 2000, keepAliveMaxTimeout: 2000 });
    this.pool.on('disconnect', (_o: unknown, _t: unknown, err: Error & { code?: string }) => {
      bump(this.stats.disconnects, err?.code ?? err?.message ?? 'closed');
    });
  }

  start(): void {
    const t0 = Date.now();
    let due = 0;
    this.timer = setInterval(() => {
      const target = Math.floor(((Date.now() - t0) / 1000) * this.stats.targetRate);
      while (due < target) {
        due++;
        if (this.inflight >= this.stats.concurrency) { this.stats.skipped++; continue; }
        this.one();
      }
    }, 10);
  }

  private one(): void {
    this.inflight++;
    this.stats.sent++;
    const t = performance.now();
    this.pool.request({ method: 'GET', path: this.path, headers: { accept: 'application/json' } }).then(async (res) => {
      const text = await res.body.text();
      const ms = performance.now() - t;
      if (ms > this.stats.maxLatencyMs) this.stats.maxLatencyMs = ms;
      let code: unknown;
      try { code = (JSON.parse(text) as { fault?: { code?: unknown } }).fault?.code; } catch { code = undefined; }
      bump(this.stats.answers, `${res.statusCode} ${String(code)}`);
      const numeric = typeof code === 'number' ? code : Number(code);
      if (res.statusCode === this.expect.status && this.expect.codes.includes(numeric)) this.stats.ok++;
      else bump(this.stats.bad, `unexpected answer ${res.statusCode} ${text.slice(0, 120)}`);
    }, (err: Error & { code?: string }) => {
      bump(this.stats.bad, `${err.code ?? err.name}: ${err.message}`);
    }).finally(() => {
      this.inflight--;
      if (this.inflight === 0) for (const f of this.idle.splice(0)) f();
    });
  }

  /** Stops sending, waits for the calls in flight, closes the connections. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.inflight > 0) await new Promise<void>((r) => this.idle.push(r));
    await this.pool.close();
  }
}

// ---------------------------------------------------------------------------------------------------------
// Slow clients on raw sockets.

/** Counts a response as it arrives: status, Content-Length or chunked framing, body bytes, the last bytes. */
class RawResponse {
  status = 0;
  contentLength = -1;
  chunked = false;
  body = 0;
  headDone = false;
  private headBuf = Buffer.alloc(0);
  private tail = Buffer.alloc(0);

  push(b: Buffer): void {
    if (!this.headDone) {
      this.headBuf = Buffer.concat([this.headBuf, b]);
      const i = this.headBuf.indexOf('\r\n\r\n');
      if (i < 0) return;
      const head = this.headBuf.subarray(0, i).toString('latin1');
      b = this.headBuf.subarray(i + 4);
      this.headBuf = Buffer.alloc(0);
      this.headDone = true;
      this.status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
      const cl = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      if (cl) this.contentLength = Number(cl[1]);
      this.chunked = /\r\ntransfer-encoding:\s*chunked/i.test(head);
    }
    this.body += b.length;
    this.tail = Buffer.concat([this.tail, b]).subarray(-5);
  }

  get complete(): boolean {
    if (!this.headDone) return false;
    if (this.contentLength >= 0) return this.body >= this.contentLength;
    if (this.chunked) return this.tail.toString('latin1') === '0\r\n\r\n';
    return false;
  }

  describe(): string {
    if (!this.headDone) return 'closed before a response head';
    if (this.status !== 200) return `status ${this.status}`;
    if (!this.complete) return 'body cut short';
    if (this.contentLength >= 0 && this.body !== this.contentLength) return 'body longer than Content-Length';
    return 'ok';
  }
}

export interface SlowKindStats {
  attempts: number;
  ok: number;
  /** Attempts cut by the end of the soak: neither ok nor failed. */
  interrupted: number;
  /** Outcome other than a complete 200, by reason. For slow senders and slow readers these are gateway-caused. */
  failed: Record<string, number>;
}

export interface SlowClientStats {
  readonly counts: { slowSenders: number; slowReaders: number; stalledReaders: number; idleKeepAlive: number };
  readonly slowSenders: SlowKindStats;
  readonly slowReaders: SlowKindStats;
  /** Never read for `stallMs`, then read: the gateway may cut them (http.socket.timeout), informational. */
  readonly stalledReaders: SlowKindStats;
  /** Keep-alive connections left idle after one call: how long the gateway kept them (ms), informational. */
  readonly idleKeepAlive: SlowKindStats & { idleClosedAfterMs: number[] };
}

const kind = (): SlowKindStats => ({ attempts: 0, ok: 0, interrupted: 0, failed: {} });

export interface SlowClientOptions {
  readonly port: number;
  /** Path prefix of the API the slow clients use (`/slow/1.0.0`). */
  readonly prefix: string;
  /** Path prefix for stalled readers (a separate API, so that its cut calls stay apart in the metrics). */
  readonly stallPrefix: string;
  readonly total: number;
  /** Delay between two bytes of a slow sender's request head. */
  readonly byteDelayMs: number;
  /** Pause after each chunk a slow reader receives. */
  readonly readPauseMs: number;
  /** How long a stalled reader reads nothing. */
  readonly stallMs: number;
  /** Path of the large response on the backend (`/1mb`). */
  readonly bigPath: string;
}

/**
 * `total` raw-socket clients, split in four: slow senders (the request head one byte at a time), slow readers
 * (a large response read one chunk per `readPauseMs`), stalled readers (nothing read for `stallMs`), idle
 * keep-alive connections. Each loops until stop().
 */
export class SlowClients {
  readonly stats: SlowClientStats;
  private stopped = false;
  private readonly sockets = new Set<net.Socket>();
  private readonly loops: Promise<void>[] = [];

  constructor(private readonly o: SlowClientOptions) {
    const q = Math.floor(o.total / 4);
    const counts = { slowSenders: q, slowReaders: q, stalledReaders: q, idleKeepAlive: o.total - 3 * q };
    this.stats = { counts, slowSenders: kind(), slowReaders: kind(), stalledReaders: kind(), idleKeepAlive: { ...kind(), idleClosedAfterMs: [] } };
  }

  start(): void {
    const c = this.stats.counts;
    for (let i = 0; i < c.slowSenders; i++) this.loops.push(this.loop(i, () => this.slowSender(i)));
    for (let i = 0; i < c.slowReaders; i++) this.loops.push(this.loop(i, () => this.reader(this.stats.slowReaders, `${this.o.prefix}${this.o.bigPath}?r=${i}`, 0)));
    for (let i = 0; i < c.stalledReaders; i++) this.loops.push(this.loop(i, () => this.reader(this.stats.stalledReaders, `${this.o.stallPrefix}${this.o.bigPath}?s=${i}`, this.o.stallMs)));
    for (let i = 0; i < c.idleKeepAlive; i++) this.loops.push(this.loop(i, () => this.idleKeepAlive(i)));
  }

  /** Stops the loops and destroys every socket still open. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const s of this.sockets) s.destroy();
    await Promise.all(this.loops);
  }

  /** Open client sockets right now. */
  get open(): number { return this.sockets.size; }

  private async loop(i: number, body: () => Promise<void>): Promise<void> {
    await sleep(i * 150); // spread the starts
    while (!this.stopped) {
      await body();
      if (!this.stopped) await sleep(100);
    }
  }

  private connect(): Promise<net.Socket | null> {
    return new Promise((resolve) => {
      const s = net.connect(this.o.port, '127.0.0.1');
      s.setNoDelay(true);
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
      s.once('connect', () => resolve(s));
      s.once('error', () => resolve(null));
    });
  }

  private finish(st: SlowKindStats, res: RawResponse, interrupted: boolean): void {
    if (interrupted) { st.interrupted++; return; }
    const d = res.describe();
    if (d === 'ok') st.ok++;
    else bump(st.failed, d);
  }

  /** The request head one byte every byteDelayMs, then the response read at full speed. */
  private async slowSender(i: number): Promise<void> {
    const st = this.stats.slowSenders;
    st.attempts++;
    const s = await this.connect();
    if (!s) { bump(st.failed, 'connect failed'); return; }
    const res = new RawResponse();
    let closed = false;
    const done = new Promise<void>((r) => {
      s.on('data', (b: Buffer) => { res.push(b); if (res.complete) s.end(); });
      s.on('error', () => { /* counted by the outcome */ });
      s.once('close', () => { closed = true; r(); });
    });
    const head = Buffer.from(`GET ${this.o.prefix}/slow-sender?i=${i} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: soak-slow-sender\r\nConnection: close\r\n\r\n`, 'latin1');
    for (let k = 0; k < head.length && !closed && !this.stopped; k++) {
      s.write(head.subarray(k, k + 1));
      await sleep(this.o.byteDelayMs);
    }
    const timer = setTimeout(() => s.destroy(), 30_000);
    await done;
    clearTimeout(timer);
    this.finish(st, res, this.stopped && !res.complete);
  }

  /**
   * One large response on a `Connection: close` call. stallMs 0: read one chunk, pause readPauseMs, and so
   * on. stallMs > 0: read nothing for stallMs, then everything.
   */
  private async reader(st: SlowKindStats, path: string, stallMs: number): Promise<void> {
    st.attempts++;
    const s = await this.connect();
    if (!s) { bump(st.failed, 'connect failed'); return; }
    const res = new RawResponse();
    const done = new Promise<void>((r) => {
      s.on('data', (b: Buffer) => {
        res.push(b);
        if (res.complete) { s.end(); return; }
        if (stallMs === 0) { s.pause(); setTimeout(() => { if (!s.destroyed) s.resume(); }, this.o.readPauseMs); }
      });
      s.on('error', () => { /* counted by the outcome */ });
      s.once('close', () => r());
    });
    s.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: soak-reader\r\nConnection: close\r\n\r\n`);
    if (stallMs > 0) {
      s.pause();
      await Promise.race([sleep(stallMs), done]);
      if (!s.destroyed) s.resume();
    }
    const timer = setTimeout(() => s.destroy(), 120_000);
    await done;
    clearTimeout(timer);
    this.finish(st, res, this.stopped && !res.complete);
  }

  /** One keep-alive call, then nothing: the connection stays until the gateway closes it (or the end). */
  private async idleKeepAlive(i: number): Promise<void> {
    const st = this.stats.idleKeepAlive;
    st.attempts++;
    const s = await this.connect();
    if (!s) { bump(st.failed, 'connect failed'); return; }
    const res = new RawResponse();
    let answeredAt = 0;
    const done = new Promise<void>((r) => {
      s.on('data', (b: Buffer) => { res.push(b); if (res.complete && answeredAt === 0) answeredAt = Date.now(); });
      s.on('error', () => { /* counted by the outcome */ });
      s.once('close', () => r());
    });
    s.write(`GET ${this.o.prefix}/idle?i=${i} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: soak-idle\r\n\r\n`);
    await done;
    if (this.stopped) { if (res.complete) st.ok++; else st.interrupted++; return; }
    if (answeredAt) st.idleClosedAfterMs.push(Date.now() - answeredAt);
    this.finish(st, res, false);
  }
}

import net from 'node:net';
import { Worker, isMainThread, workerData } from 'node:worker_threads';
import type { HttpResponse } from 'uWebSockets.js';
import { loadUws } from '../transport/uws.js';
import { HTTPParser, kOnBody, kOnHeadersComplete, kOnMessageComplete, type LlhttpParser } from '../transport/sender/http-parser.js';

/**
 * `node dist/bench/floor-proxy.js PORT UPSTREAM_PORT THREADS`: the floor of Sluice's stack, measured beside it.
 *
 * The same transport as Sluice's pass-through (uWebSockets.js event loops in worker threads on a shared port,
 * keep-alive `net.Socket`s to the backend with one `onread` buffer, Node's llhttp, one cork per response)
 * with no gateway at all: no routing, phases, header rules, protocol states, worker pool, telemetry or
 * error handling beyond a 502. It proxies GETs without a body only. What it reaches against nginx is the most
 * any gateway on this stack can reach on the machine; Sluice's distance to it is what its own logic costs.
 */
const [port, upstream, threads] = (isMainThread ? process.argv.slice(2) : workerData as string[]).map(Number) as [number, number, number];

if (isMainThread) {
  for (let i = 0; i < threads; i++) new Worker(new URL(import.meta.url), { workerData: [String(port), String(upstream), String(threads)] });
} else {
  const { uws } = loadUws(false);
  const readBuffer = Buffer.allocUnsafe(65536);
  const idle: Upstream[] = [];

  class Upstream {
    private readonly parser: LlhttpParser = new HTTPParser();
    readonly socket: net.Socket;
    res: HttpResponse | null = null;
    private aborted = false;
    private total = -1;
    private keepAlive = false;
    private chunk: Buffer | null = null;

    constructor() {
      this.parser.initialize(HTTPParser.RESPONSE, {}, 16384, 0);
      this.parser[kOnHeadersComplete] = this.onHead;
      this.parser[kOnBody] = this.onBody;
      this.parser[kOnMessageComplete] = this.onDone;
      this.socket = net.connect({ host: '127.0.0.1', port: upstream, noDelay: true, onread: { buffer: readBuffer, callback: this.onRead } });
      this.socket.on('error', () => {});
      this.socket.on('close', this.onClose);
    }

    send(res: HttpResponse, head: string): void {
      this.res = res;
      this.aborted = false;
      res.onAborted(() => { this.aborted = true; });
      this.socket.write(head, 'latin1');
    }

    private readonly onRead = (n: number, buf: Buffer): boolean => {
      const res = this.res;
      if (res === null || this.aborted) { this.socket.destroy(); return false; }
      this.chunk = buf.subarray(0, n);
      res.cork(this.parse);
      return true;
    };

    private readonly parse = (): void => { this.parser.execute(this.chunk!); };

    private readonly onHead = (_ma: number, _mi: number, headers: string[], _m: unknown, _u: unknown, status: number, text: string, _up: boolean, keepAlive: boolean): number => {
      this.keepAlive = keepAlive;
      this.total = -1;
      let block = `${status} ${text}`;
      for (let i = 0; i < headers.length; i += 2) {
        const name = headers[i]!;
        if (name.length === 14 && name.toLowerCase() === 'content-length') { this.total = Number(headers[i + 1]); continue; }
        if ((name.length === 10 && name.toLowerCase() === 'connection') || (name.length === 4 && name.toLowerCase() === 'date')) continue;
        block += `\r\n${name}: ${headers[i + 1]}`;
      }
      this.res!.writeStatus(block);
      return 0;
    };

    private readonly onBody = (chunk: Buffer): void => {
      if (this.total >= 0) this.res!.tryEnd(chunk, this.total);
      else this.res!.write(chunk);
    };

    private readonly onDone = (): void => {
      const res = this.res!;
      this.res = null;
      if (this.total < 0 || this.total === 0) res.end();
      if (this.keepAlive) idle.push(this); else this.socket.destroy();
    };

    private readonly onClose = (): void => {
      const i = idle.indexOf(this);
      if (i >= 0) idle.splice(i, 1);
      const res = this.res;
      this.res = null;
      if (res !== null && !this.aborted) res.cork(() => { res.writeStatus('502 Bad Gateway').end(); });
    };
  }

  const hostLine = `host: 127.0.0.1:${upstream}\r\n`;
  uws.App().any('/*', (res, req) => {
    let head = `${req.getCaseSensitiveMethod()} ${req.getUrl()}${req.getQuery() ? '?' + req.getQuery() : ''} HTTP/1.1\r\n${hostLine}`;
    req.forEach((name, value) => { if (name !== 'host' && name !== 'connection') head += `${name}: ${value}\r\n`; });
    const ip = new Uint8Array(res.getRemoteAddress());
    head += `x-forwarded-for: ${ip[0]}.${ip[1]}.${ip[2]}.${ip[3]}\r\n\r\n`;
    (idle.pop() ?? new Upstream()).send(res, head);
  }).listen('127.0.0.1', port, (s) => { if (!s) { process.stderr.write(`floor proxy: cannot listen on ${port}\n`); process.exit(1); } });
}

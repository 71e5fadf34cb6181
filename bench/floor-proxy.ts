import net from 'node:net';
import { createRequire } from 'node:module';
import { Worker, isMainThread, workerData } from 'node:worker_threads';
import { HTTPParser, kOnBody, kOnHeadersComplete, kOnMessageComplete, type LlhttpParser } from '../transport/sender/http-parser.js';

/**
 * `node dist/bench/floor-proxy.js PORT UPSTREAM_PORT THREADS`: the floor of Sluice's stack, measured beside it.
 *
 * The same transport as Sluice's pass-through (worker threads each accepting on their own SO_REUSEPORT
 * socket, client and backend `net.Socket`s reading into one buffer per thread, Node's llhttp both ways,
 * one write per response, and what a turn of the event loop writes leaving at the turn's end, as Sluice's
 * writer sends it: transport/direct-write.ts) with no gateway at all: no routing, phases, header rules,
 * protocol states, worker pool, telemetry, limits or error handling beyond a 502. It proxies GETs without a
 * body only. What it reaches against nginx is the most any gateway on this stack can reach on the machine;
 * Sluice's distance to it is what its own logic costs.
 */
const require = createRequire(import.meta.url);
const methods = (require('_http_common') as { methods: string[] }).methods;
const { createReuseportFd } = require('node-unix-socket') as { createReuseportFd(port: number, host: string): number };
const [port, upstream, threads] = (isMainThread ? process.argv.slice(2) : workerData as string[]).map(Number) as [number, number, number];

if (isMainThread) {
  for (let i = 0; i < threads; i++) new Worker(new URL(import.meta.url), { workerData: [String(port), String(upstream), String(threads)] });
} else {
  const backendBuffer = Buffer.allocUnsafe(65536);
  const clientBuffer = Buffer.allocUnsafe(65536);
  const idle: Upstream[] = [];
  // The turn's writes: each socket written to is corked at its first write and uncorked at the turn's end.
  const corked: net.Socket[] = [];
  const uncorkAll = (): void => { for (const s of corked) s.uncork(); corked.length = 0; };
  const inTurn = (s: net.Socket): net.Socket => {
    if (s.writableCorked === 0) { if (corked.length === 0) setImmediate(uncorkAll); s.cork(); corked.push(s); }
    return s;
  };

  class Upstream {
    private readonly parser: LlhttpParser = new HTTPParser();
    readonly socket: net.Socket;
    client: Client | null = null;
    private keepAlive = false;
    private head = '';
    constructor() {
      this.parser.initialize(HTTPParser.RESPONSE, {}, 16384, 0);
      this.parser[kOnHeadersComplete] = this.onHead;
      this.parser[kOnBody] = this.onBody;
      this.parser[kOnMessageComplete] = this.onDone;
      this.socket = net.connect({ host: '127.0.0.1', port: upstream, noDelay: true, onread: { buffer: backendBuffer, callback: this.onRead } });
      this.socket.on('error', () => {});
      this.socket.on('close', this.onClose);
    }
    send(c: Client, head: string): void { this.client = c; inTurn(this.socket).write(head, 'latin1'); }
    private readonly onRead = (n: number, buf: Buffer): boolean => { this.parser.execute(buf.subarray(0, n)); return true; };
    private readonly onHead = (_ma: number, _mi: number, headers: string[], _m: unknown, _u: unknown, status: number, text: string, _up: boolean, keepAlive: boolean): number => {
      this.keepAlive = keepAlive;
      let head = `HTTP/1.1 ${status} ${text}\r\n`;
      let length = false;
      for (let i = 0; i < headers.length; i += 2) {
        const name = headers[i]!;
        if (name.length === 14 && name.toLowerCase() === 'content-length') length = true;
        if (name.length === 10 && name.toLowerCase() === 'connection') continue;
        head += `${name}: ${headers[i + 1]}\r\n`;
      }
      this.head = length ? `${head}\r\n` : `${head}transfer-encoding: chunked\r\n\r\n`;
      return 0;
    };
    // llhttp's body pieces are copies of their own: the socket may keep them.
    private readonly onBody = (chunk: Buffer): void => {
      const s = inTurn(this.client!.socket);
      if (this.head !== '') { s.write(this.head, 'latin1'); this.head = ''; }
      s.write(chunk);
    };
    private readonly onDone = (): void => {
      const s = inTurn(this.client!.socket);
      if (this.head !== '') { s.write(this.head, 'latin1'); this.head = ''; }
      this.client = null;
      if (this.keepAlive) idle.push(this); else this.socket.destroy();
    };
    private readonly onClose = (): void => {
      const i = idle.indexOf(this);
      if (i >= 0) idle.splice(i, 1);
      const c = this.client;
      this.client = null;
      if (c !== null) c.socket.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    };
  }

  const hostLine = `host: 127.0.0.1:${upstream}\r\n`;
  class Client {
    private readonly parser: LlhttpParser = new HTTPParser();
    readonly socket: net.Socket;
    constructor(handle: unknown, private readonly ip: string) {
      this.parser.initialize(HTTPParser.REQUEST, {}, 16384, 0);
      this.parser[kOnHeadersComplete] = this.onHead;
      this.socket = new net.Socket({ handle, onread: { buffer: clientBuffer, callback: this.onRead } } as unknown as net.SocketConstructorOpts);
      this.socket.on('error', () => {});
      this.socket.resume();
    }
    private readonly onRead = (n: number, buf: Buffer): boolean => { this.parser.execute(buf.subarray(0, n)); return true; };
    private readonly onHead = (_ma: number, _mi: number, headers: string[], method: number, url: string): number => {
      let head = `${methods[method]} ${url} HTTP/1.1\r\n${hostLine}`;
      for (let i = 0; i < headers.length; i += 2) {
        const n = headers[i]!;
        if ((n.length === 4 && n.toLowerCase() === 'host') || (n.length === 10 && n.toLowerCase() === 'connection')) continue;
        head += `${n}: ${headers[i + 1]}\r\n`;
      }
      (idle.pop() ?? new Upstream()).send(this, `${head}x-forwarded-for: ${this.ip}\r\n\r\n`);
      return 0;
    };
  }

  interface RawHandle { setNoDelay(on: boolean): void; getpeername(out: { address?: string }): number }
  const server = net.createServer();
  server.listen({ fd: createReuseportFd(port, '127.0.0.1') }, () => {
    const h = (server as unknown as { _handle: { onconnection: (err: number, h: RawHandle) => void } })._handle;
    h.onconnection = (err, handle) => {
      if (err !== 0) return;
      handle.setNoDelay(true);
      const peer: { address?: string } = {};
      handle.getpeername(peer);
      new Client(handle, peer.address ?? '');
    };
  });
}

import http from 'node:http';
import crypto from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Readable, Writable } from 'node:stream';
import { benchApiToml, cleanupAll, rssOf, startSluice, stopTracked } from './lib/products.js';

/**
 * `npm run bench:body`: a 1 GiB request body up and a 1 GiB response body down through Sluice (1 io thread),
 * hashed on both sides, with the gateway's RSS sampled every 100 ms. Passes when both bodies arrive whole and
 * the peak RSS stays within 64 MiB of the idle gateway's. Environment: BODY_MIB (default 1024).
 * The upload is chunked (a Content-Length upload of that size works too since the front door left uWebSockets.js).
 */
const MIB = 1024 * 1024;
const SIZE = Number(process.env['BODY_MIB'] ?? 1024) * MIB;
const LIMIT = 64 * MIB;
const BACKEND = 18977;
const OFFSET = 790;
const CHUNK = crypto.randomBytes(MIB);

/** SIZE bytes: the same random MiB over and over (the hash still covers every byte). */
function source(): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= SIZE) { this.push(null); return; }
      const n = Math.min(MIB, SIZE - sent);
      sent += n;
      this.push(n === MIB ? CHUNK : CHUNK.subarray(0, n));
    },
  });
}

function hashSink(): { sink: Writable; result: () => { bytes: number; sha: string } } {
  const h = crypto.createHash('sha256');
  let bytes = 0;
  const sink = new Writable({ write(c: Buffer, _e, cb) { bytes += c.length; h.update(c); cb(); } });
  return { sink, result: () => ({ bytes, sha: h.digest('hex') }) };
}

function expectedSha(): string {
  const h = crypto.createHash('sha256');
  for (let sent = 0; sent < SIZE; sent += MIB) h.update(SIZE - sent >= MIB ? CHUNK : CHUNK.subarray(0, SIZE - sent));
  return h.digest('hex');
}

async function main(): Promise<void> {
  const backend = http.createServer((req, res) => {
    if (req.method === 'POST') {
      const { sink, result } = hashSink();
      pipeline(req, sink).then(() => { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify(result())); }, () => res.destroy());
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(SIZE) });
    void pipeline(source(), res).catch(() => undefined);
  });
  await new Promise<void>((r) => backend.listen(BACKEND, '127.0.0.1', r));
  const api = benchApiToml({ name: 'BigBody', context: '/big', backend: `http://127.0.0.1:${BACKEND}`, verbs: ['GET', 'POST'] });
  const s = await startSluice({ offset: OFFSET, ioThreads: 1, files: { 'repository/deployment/server/apis/big.toml': api } });
  const pid = s.proc.pid!;
  const want = expectedSha();
  await new Promise((r) => setTimeout(r, 2000));
  const idle = rssOf(pid);
  let peak = idle;
  const sampler = setInterval(() => { peak = Math.max(peak, rssOf(pid)); }, 100);
  const agent = new http.Agent({ keepAlive: false });

  const t0 = Date.now();
  const up = await new Promise<{ bytes: number; sha: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: s.http, path: '/big/1.0.0/up', method: 'POST', agent, headers: { 'content-type': 'application/octet-stream' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => { try { resolve(JSON.parse(text) as { bytes: number; sha: string }); } catch { reject(new Error(`upload: ${res.statusCode} ${text.slice(0, 200)}`)); } });
    });
    req.on('error', reject);
    void pipeline(source(), req).catch(reject);
  });
  const upMs = Date.now() - t0;

  const t1 = Date.now();
  const down = await new Promise<{ bytes: number; sha: string }>((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: s.http, path: '/big/1.0.0/down', agent }, (res) => {
      const { sink, result } = hashSink();
      pipeline(res, sink).then(() => resolve(result()), reject);
    }).on('error', reject);
  });
  const downMs = Date.now() - t1;
  clearInterval(sampler);
  await stopTracked(s.proc);
  backend.close();

  const problems: string[] = [];
  if (up.bytes !== SIZE || up.sha !== want) problems.push(`upload arrived as ${up.bytes} bytes, sha ${up.sha.slice(0, 12)}`);
  if (down.bytes !== SIZE || down.sha !== want) problems.push(`download arrived as ${down.bytes} bytes, sha ${down.sha.slice(0, 12)}`);
  if (peak - idle > LIMIT) problems.push(`RSS grew by ${((peak - idle) / MIB).toFixed(0)} MiB (limit 64)`);
  const mbps = (ms: number): string => (SIZE / MIB / (ms / 1000)).toFixed(0);
  process.stdout.write(`${SIZE / MIB} MiB up in ${upMs} ms (${mbps(upMs)} MiB/s), down in ${downMs} ms (${mbps(downMs)} MiB/s); `
    + `gateway RSS idle ${(idle / MIB).toFixed(0)} MiB, peak ${(peak / MIB).toFixed(0)} MiB (+${((peak - idle) / MIB).toFixed(0)})\n`);
  process.stdout.write(problems.length ? `FAIL: ${problems.join('; ')}\n` : 'PASS: both bodies whole, RSS within 64 MiB of idle\n');
  process.exitCode = problems.length ? 1 : 0;
}

main().then(() => { cleanupAll(); process.exit(process.exitCode ?? 0); }, (e: unknown) => { process.stderr.write(`big-body failed: ${e instanceof Error ? e.stack : String(e)}\n`); cleanupAll(); process.exit(1); });

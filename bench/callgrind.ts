import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { spawn, execFileSync } from 'node:child_process';
import { parse, stringify } from 'smol-toml';
import { PROJECT, tmpDir, waitPort } from './lib/products.js';
import { benchToken, sluiceBenchFiles } from './peers/sluice.js';

/**
 * `node dist/bench/callgrind.js [ROOT...]`: instructions per proxied call, counted by callgrind, for one
 * or more checkouts of Sluice (default: this one), each started from its own CLI with one io thread on a
 * copy of its default home, in front of a small backend in this process. Instruction counts do not move
 * with the machine's load, so changes too small for requests/s show (docs/performance.md).
 *
 *   CG_WARMUP  keep-alive calls before counting (default 20000: the JIT settles)
 *   CG_OFFSET  the first checkout's port offset (default 700; the next ones +10): two runs side by side
 *   CG_CALLS   calls counted (default 5000)
 *   CG_ACCESS_LOG  "on" keeps the access log on (default off: the io thread's own cost)
 *   CG_API     "secured": the bench's secured path (JWT + subscription + throttling, bench/peers/sluice.ts,
 *              with a token of the bench application); "jwt": JWT + subscription alone; default: pass-through
 *   CG_PAD     bytes: an `x-pad` header of this many bytes on each call without a token (the secured call's
 *              954-byte token, without its work; default none)
 *   CG_BODY    bytes: each call is a POST with a body of this many bytes (default: a GET), which the
 *              backend reads whole before it answers
 *   CG_KEEP    a directory: the callgrind output of each checkout is kept there (for callgrind_annotate),
 *              with V8's map of its compiled JavaScript (`--perf-basic-prof`) as `<name>.perf.map`: JIT
 *              addresses that callgrind_annotate prints as `???:0x...` are looked up there. It also runs
 *              node with `--no-short-builtin-calls`, so that V8's builtins show by name (a few percent more
 *              instructions than a run without CG_KEEP: compare kept runs with kept runs); node's standard
 *              output is kept as `<name>.stdout.log`, marked where counting starts (a checkout whose
 *              shebang adds --trace-deopt shows what deoptimized while counting)
 *
 * Counting covers the whole process (io thread, main thread, workers) from the moment instrumentation is
 * switched on after the warm-up. Under valgrind V8 is still compiling then: TurboFan's background jobs were
 * about a tenth of a pass-through count on 2026-11-27, where perf shows them at under 0.2% of a real run.
 * To compare two checkouts' request path, read `uv__stream_io` inclusive from the kept output (CG_KEEP).
 */
const WARMUP = Number(process.env['CG_WARMUP'] ?? 20000);
const CALLS = Number(process.env['CG_CALLS'] ?? 5000);
const ACCESS_LOG = process.env['CG_ACCESS_LOG'] === 'on';
const CONNECTIONS = 10;
const API = process.env['CG_API'] ?? 'open';
const BODY = Buffer.alloc(Number(process.env['CG_BODY'] ?? 0), 'x');
const PAD = Number(process.env['CG_PAD'] ?? 0);
const API_PATH = API === 'secured' ? '/throttled/1.0.0/small' : API === 'jwt' ? '/secure/1.0.0/small' : '/cg/1.0.0/small';

async function backend(): Promise<{ port: number; close(): void }> {
  const body = Buffer.from('{"hello":"world","n":42}');
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }); res.end(body); });
  });
  server.keepAliveTimeout = 120000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as { port: number }).port, close: () => server.close() };
}

/**
 * `n` GETs (POSTs with CG_BODY) over `CONNECTIONS` keep-alive connections of `agent`, one at a time on each.
 * The warm-up and the count share the agent: counted calls go over connections the JIT has seen, as a
 * bench's do, not over new ones whose first reads deoptimize the front door's read path while valgrind
 * slows its recompiling (2026-11-29: about 4 000 instructions a call of TurboFan and baseline code).
 */
async function load(agent: http.Agent, port: number, n: number, token: string | null): Promise<void> {
  let next = 0;
  const one = (): Promise<void> => new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = token !== null ? { authorization: `Bearer ${token}` } : PAD > 0 ? { 'x-pad': 'x'.repeat(PAD) } : {};
    if (BODY.length > 0) { headers['content-type'] = 'application/json'; headers['content-length'] = BODY.length; }
    http.request({ host: '127.0.0.1', port, path: API_PATH, agent, method: BODY.length > 0 ? 'POST' : 'GET', headers }, (res) => {
      res.resume();
      res.on('end', () => { if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`)); else resolve(); });
    }).on('error', reject).end(BODY.length > 0 ? BODY : undefined);
  });
  const worker = async (): Promise<void> => { while (next++ < n) await one(); };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
}

async function measure(root: string, offset: number, backendPort: number): Promise<number> {
  const home = tmpDir('sluice-cg-home-');
  fs.cpSync(path.join(root, 'home'), home, { recursive: true, filter: (p) => !/repository\/(database|logs)(\/|$)|resources\/security\/(generated|sluice-tls|oauth-signing)/.test(p) });
  const confPath = path.join(home, 'repository/conf/deployment.toml');
  const conf = parse(fs.readFileSync(confPath, 'utf8')) as Record<string, Record<string, unknown>>;
  conf['server'] = { ...conf['server'], offset };
  conf['passthru_http'] = { ...conf['passthru_http'], io_threads_per_reactor: 1 };
  conf['sluice'] = { ...conf['sluice'], log: { console: false, level: 'warn' } };
  conf['http_access_log'] = { ...conf['http_access_log'], enabled: ACCESS_LOG };
  fs.writeFileSync(confPath, stringify(conf));
  const apis = path.join(home, 'repository/deployment/server/apis');
  fs.mkdirSync(apis, { recursive: true });
  if (API !== 'open') {
    for (const [rel, text] of Object.entries(sluiceBenchFiles(`http://127.0.0.1:${backendPort}`, `http://127.0.0.1:${backendPort}`))) {
      fs.mkdirSync(path.dirname(path.join(home, rel)), { recursive: true });
      fs.writeFileSync(path.join(home, rel), text);
    }
  }
  fs.writeFileSync(path.join(apis, 'cg.toml'), `name = "Cg"\ncontext = "/cg"\nversion = "1.0.0"\ntype = "HTTP"\nlifecycle_state = "PUBLISHED"\nthrottling_policy = "Unlimited"\n[endpoints]\nproduction = "http://127.0.0.1:${backendPort}"\n[[resources]]\nverb = "${BODY.length > 0 ? 'POST' : 'GET'}"\nuri_template = "/*"\nauth_type = "None"\nthrottling_policy = "Unlimited"\n`);
  // The node flags of the CLI's shebang apply as when an operator starts it.
  const shebang = fs.readFileSync(path.join(root, 'bin/sluice.js'), 'utf8').split('\n')[0]!;
  const flags = shebang.split(/\s+/).filter((f) => f.startsWith('--'));
  const keep = process.env['CG_KEEP'];
  // Without short builtin calls V8 runs its builtins from the binary, where callgrind names them
  // (Builtins_MapPrototypeGet...); with them, from a copy in the JIT's range that neither it nor the map names.
  if (keep) flags.push('--perf-basic-prof', '--no-short-builtin-calls');
  const out = path.join(home, 'callgrind.out');
  // Kept: node's own output (a --trace-deopt in the checkout's shebang, say), marked where counting starts.
  const stdoutLog = path.join(home, 'stdout.log');
  const stdoutFd = keep ? fs.openSync(stdoutLog, 'a') : null;
  const proc = spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${out}`, process.execPath, ...flags,
    path.join(root, 'bin/sluice.js'), 'start', '--home', home], { stdio: ['ignore', stdoutFd ?? 'ignore', 'pipe'] });
  // The child has its own copy of the descriptor.
  if (stdoutFd !== null) fs.closeSync(stdoutFd);
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  try {
    const port = 8280 + offset;
    await waitPort(port, 600_000);
    if (API !== 'open') await waitPort(9443 + offset, 600_000);
    const token = API === 'open' ? null : await benchToken(`https://127.0.0.1:${9443 + offset}`);
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    await load(agent, port, WARMUP, token);
    if (keep) fs.appendFileSync(stdoutLog, '=== callgrind: counting from here ===\n');
    execFileSync('callgrind_control', ['-i', 'on', String(proc.pid)]);
    await load(agent, port, CALLS, token);
    execFileSync('callgrind_control', ['-d', String(proc.pid)]);
    agent.destroy();
    await new Promise((r) => setTimeout(r, 2000));
    const dumps = fs.readdirSync(home).filter((f) => f.startsWith('callgrind.out')).map((f) => path.join(home, f));
    let total = 0;
    for (const f of dumps) {
      const m = /^(?:summary|totals): (\d+)/m.exec(fs.readFileSync(f, 'utf8'));
      if (m) total = Math.max(total, Number(m[1]));
    }
    if (total === 0) throw new Error(`no callgrind totals in ${dumps.join(', ')}: ${stderr.slice(-400)}`);
    if (keep) {
      fs.mkdirSync(keep, { recursive: true });
      for (const f of dumps) fs.copyFileSync(f, path.join(keep, `${path.basename(root)}-${offset}-${path.basename(f)}`));
      const map = `/tmp/perf-${proc.pid}.map`;
      if (fs.existsSync(map)) fs.renameSync(map, path.join(keep, `${path.basename(root)}-${offset}.perf.map`));
      fs.copyFileSync(stdoutLog, path.join(keep, `${path.basename(root)}-${offset}.stdout.log`));
    }
    return total / CALLS;
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
    fs.rmSync(home, { recursive: true, force: true });
  }
}

const roots = process.argv.slice(2).length > 0 ? process.argv.slice(2) : [PROJECT];
const be = await backend();
try {
  let offset = Number(process.env['CG_OFFSET'] ?? 700);
  for (const root of roots) {
    const perCall = await measure(path.resolve(root), offset, be.port);
    offset += 10;
    process.stdout.write(`${path.resolve(root)}: ${Math.round(perCall)} instructions per call (${CALLS} calls after ${WARMUP} of warm-up, access log ${ACCESS_LOG ? 'on' : 'off'}, ${BODY.length > 0 ? `POST ${BODY.length} bytes to ` : ''}${API_PATH})\n`);
  }
} finally {
  be.close();
}

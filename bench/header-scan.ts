/**
 * What llhttp spends on a long header value, by parser build: the instructions one request head costs with
 * and without a bearer token of the acceptance check's size (953 characters), counted by callgrind, for
 *   - `node`:  Node's own llhttp through `_http_common` (what the front door and the sender use), built
 *              without SSE 4.2, so its header-value scan is a table lookup per byte;
 *   - `plain`: llhttp compiled to WebAssembly, as undici ships it (lib/llhttp/llhttp-wasm.js);
 *   - `simd`:  the same with WebAssembly SIMD (lib/llhttp/llhttp_simd-wasm.js).
 * The difference between the two heads is the token's scan (docs/performance.md: the secured path's
 * largest single cost over pass-through). Not part of `npm run bench` and never run by tests.
 *
 *   npm run build && node dist/bench/header-scan.js          # needs valgrind
 *
 * Each variant runs in its own child under callgrind twice (BENCH_FEW and BENCH_MANY parses), so the start-up
 * cancels out: per parse = (many - few) / (BENCH_MANY - BENCH_FEW).
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const FEW = Number(process.env['BENCH_FEW'] ?? 20_000);
const MANY = Number(process.env['BENCH_MANY'] ?? 120_000);
const VARIANTS = ['node', 'plain', 'simd'] as const;
type Variant = (typeof VARIANTS)[number];

function head(withToken: boolean): Buffer {
  const token = `eyJ${'a'.repeat(950)}`;
  return Buffer.from(`GET /secure/1.0.0/x HTTP/1.1\r\nHost: 127.0.0.1:8651\r\n${withToken ? `Authorization: Bearer ${token}\r\n` : ''}\r\n`);
}

/** The child: parses the head `n` times with one parser build. */
function parse(variant: Variant, withToken: boolean, n: number): void {
  const bytes = head(withToken);
  let complete = 0;
  if (variant === 'node') {
    const { HTTPParser } = require('_http_common') as { HTTPParser: { new (): { initialize(t: number, r: object, max: number, lenient: number): void; execute(b: Buffer): unknown; [k: number]: unknown }; REQUEST: number; kOnHeadersComplete: number } };
    const p = new HTTPParser();
    p.initialize(HTTPParser.REQUEST, {}, 0, 0);
    p[HTTPParser.kOnHeadersComplete] = (): number => { complete++; return 0; };
    for (let i = 0; i < n; i++) p.execute(bytes);
  } else {
    const wasm = require(`undici/lib/llhttp/${variant === 'simd' ? 'llhttp_simd-wasm.js' : 'llhttp-wasm.js'}`) as Uint8Array<ArrayBuffer>;
    const none = (): number => 0;
    const env = {
      wasm_on_url: none, wasm_on_status: none, wasm_on_message_begin: none, wasm_on_header_field: none,
      wasm_on_header_value: none, wasm_on_body: none, wasm_on_message_complete: none,
      wasm_on_headers_complete: (): number => { complete++; return 0; },
    };
    const ll = new WebAssembly.Instance(new WebAssembly.Module(wasm), { env }).exports as {
      memory: WebAssembly.Memory; malloc(n: number): number; llhttp_alloc(type: number): number;
      llhttp_execute(p: number, at: number, len: number): number;
    };
    const parser = ll.llhttp_alloc(0); // HTTP_REQUEST
    const at = ll.malloc(bytes.length);
    for (let i = 0; i < n; i++) {
      new Uint8Array(ll.memory.buffer, at, bytes.length).set(bytes);
      const r = ll.llhttp_execute(parser, at, bytes.length);
      if (r !== 0) throw new Error(`llhttp error ${r}`);
    }
  }
  if (complete !== n) throw new Error(`${complete} heads of ${n}`);
}

/** Instructions of a child parsing `n` heads, whole process (callgrind prints its total on stderr). */
function instructions(variant: Variant, withToken: boolean, n: number): number {
  // WebAssembly compiled by TurboFan from the start: Liftoff's code and the tier-up landing at a different
  // point under valgrind in each run made the figures move by a factor of two.
  const flags = variant === 'node' ? [] : ['--no-liftoff'];
  const args = ['--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, ...flags, fileURLToPath(import.meta.url), variant, withToken ? '1' : '0', String(n)];
  const r = spawnSync('valgrind', args, { encoding: 'utf8' });
  const m = /Collected : (\d+)/.exec(r.stderr);
  if (r.status !== 0 || m === null) throw new Error(`valgrind (${variant}): ${r.stderr.slice(-400)}`);
  return Number(m[1]);
}

const [variantArg, tokenArg, nArg] = process.argv.slice(2);
if (variantArg !== undefined) {
  parse(variantArg as Variant, tokenArg === '1', Number(nArg));
} else {
  const rows: Record<string, { withoutToken: number; withToken: number; tokenScan: number }> = {};
  for (const v of VARIANTS) {
    const perParse = (withToken: boolean): number =>
      Math.round((instructions(v, withToken, MANY) - instructions(v, withToken, FEW)) / (MANY - FEW));
    const without = perParse(false);
    const withT = perParse(true);
    rows[v] = { withoutToken: without, withToken: withT, tokenScan: withT - without };
    console.log(`${v.padEnd(6)} ${String(without).padStart(7)} instructions a head without the token, ${String(withT).padStart(7)} with it: the token costs ${withT - without}`);
  }
  console.log(JSON.stringify({ bench: 'header-scan', few: FEW, many: MANY, rows }));
}

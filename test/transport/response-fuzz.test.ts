import t from 'tap';
import type net from 'node:net';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR } from '../helpers/home.js';
import { faultOf, onEachRequestHead, primeResponse, rawBackend, request } from '../helpers/backends.js';
import { mutate } from '../helpers/mutate.js';
import { prng } from '../helpers/prng.js';
import { HTTPParser, kOnBody, kOnHeadersComplete, kOnMessageComplete } from '../../transport/sender/http-parser.js';

// A bounded, seeded fuzz of the sender: mutations of valid backend responses, each answered by a raw backend
// to a call through a real gateway, as the first response on its backend connection or after a Content-Length
// or a chunked one on the same kept connection. What the client gets is judged against what Node's own parser
// (llhttp, strict, the oracle here) makes of the same bytes:
// - a response it reads whole reaches the client with its status and exactly its body;
// - one it refuses is answered 502 with a fault, or cut after its head, and nothing past the break passes;
// - a 101 is refused; and the call never waits for the socket timeout (the stop 46 hang);
// - the good response after it on the connection carries only its own fields (stop 48: a chunked response's
//   trailer fields came with the next response).
// A response that needs the backend's close to end (no length, or a length longer than its bytes) is followed
// by the backend's FIN, and judged with it. `npm run fuzz` runs more cases (FUZZ_CASES, FUZZ_SEED).

const CASES = Number(process.env['FUZZ_CASES'] ?? 400);
const SEED = Number(process.env['FUZZ_SEED'] ?? 0x5eed);

const BASES: readonly string[] = [
  'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello',
  'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;e=1\r\nhello\r\n0\r\nx-t: 1\r\n\r\n',
  'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok',
  'HTTP/1.1 204 No Content\r\nX-A: 1\r\n\r\n',
  'HTTP/1.0 200 OK\r\nServer: old\r\n\r\nuntil-close',
];

const INTERESTING = ['\r', '\n', '\r\n', ' ', '\t', '\0', ':', ',', ';', '0', 'f', '-', '\u0080', '\u00ff',
  '\r\nTransfer-Encoding: chunked', '\r\nContent-Length: 0', '\r\nContent-Length: 10', '\r\nContent-Length: 3',
  '\r\nConnection: close', '\r\nUpgrade: h2c', ' chunked', 'Chunked', 'HTTP/1.1', '101', '304', '000', '099', '\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nleak'];

/** What llhttp makes of a response's bytes: the first final response, read whole or not, or refused. */
interface Oracle { kind: 'whole' | 'refused' | 'unended' | 'switch'; status: number; body: string }

function oracle(bytes: Buffer, eof: boolean): Oracle {
  const p = new HTTPParser();
  p.initialize(HTTPParser.RESPONSE, {}, 16384, 0);
  let status = 0;
  let low = -1;
  let body = '';
  let whole = false;
  p[kOnHeadersComplete] = (_ma: number, _mi: number, _h: unknown, _m: unknown, _u: unknown, st: number) => {
    if (status === 0 && st < 100) low = st;
    if (status === 0 && (st >= 200 || st === 101)) status = st;
    return 0;
  };
  p[kOnBody] = (b: Buffer) => { if (status !== 0 && !whole) body += b.toString('latin1'); };
  p[kOnMessageComplete] = () => { if (status !== 0) whole = true; };
  const r = p.execute(bytes);
  const end = !whole && r === bytes.length && eof ? p.finish() : undefined;
  p.close();
  if (status === 101) return { kind: 'switch', status, body: '' };
  // Three digits under 100 are no status (RFC 9110 §15): the sender refuses what llhttp reads.
  if (low >= 0) return { kind: 'refused', status: low, body: '' };
  if (whole) return { kind: 'whole', status, body };
  if (r instanceof Error || end instanceof Error) return { kind: 'refused', status, body };
  return { kind: 'unended', status, body };
}

interface Case { bytes: Buffer; fin: boolean }

/** The fields a prime response reaches the client with: the backend's own, and the gateway's. */
const PRIME_FIELDS: ReadonlySet<string> = new Set(['x-prime', 'date', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/**
 * Answers `/prime-cl/<n>` and `/prime-chunked/<n>` with a good response of their own (a response repeating the
 * one before would be replayed without the parser: kept-response.ts), and `/case/<i>` with case i's bytes,
 * then the FIN when it says so. `/first/<i>` on a connection that answered before is not answered: the backend
 * ends that connection, and the gateway sends the call again on a new one, where it is the first.
 */
function answerByPath(cases: Map<number, Case>, answered: string[]) {
  return (s: net.Socket): void => {
    let before = '';
    onEachRequestHead(s, (_index, _method, path) => {
      const [what = '', n] = path.slice(1).split('/');
      if (what.startsWith('prime-') || what === 'case' || what === 'first' && before === '') answered.push(`${path} after ${before || 'nothing'}`);
      if (what === 'prime-cl' || what === 'prime-chunked') s.write(primeResponse(what, n ?? ''));
      else if (what === 'first' && before !== '') s.end();
      else {
        const c = cases.get(Number(n));
        if (c) { s.write(c.bytes); if (c.fin) s.end(); }
      }
      before = what;
    });
  };
}

t.test(`the sender under ${CASES} seeded mutations of valid backend responses (seed ${SEED})`, async (t) => {
  const cases = new Map<number, Case>();
  const answered: string[] = [];
  const be = await rawBackend(t, answerByPath(cases, answered));
  const s = await startSluice(t, {}, { [`${API_DIR}/rf.toml`]: apiToml({ name: 'Rf', context: '/rf', production: be.url }) });
  const call = (path: string) => request(s.url(`/rf/1.0.0/${path}`), { timeoutMs: 4000 });
  const rnd = prng(SEED);
  let failures = 0;
  const kinds = new Map<string, number>();
  for (let i = 0; i < CASES && failures < 10; i++) {
    const bytes = Buffer.from(mutate(BASES[Math.floor(rnd() * BASES.length)]!, rnd, INTERESTING), 'latin1');
    const open = oracle(bytes, false);
    const fin = open.kind === 'unended';
    cases.set(i, { bytes, fin });
    const want = fin ? oracle(bytes, true) : open;
    const place = (['first', 'prime-cl', 'prime-chunked'] as const)[Math.floor(rnd() * 3)]!;
    kinds.set(`${want.kind} ${place}`, (kinds.get(`${want.kind} ${place}`) ?? 0) + 1);
    if (place !== 'first') {
      const primed = await call(`${place}/${i}`);
      if (primed.text !== 'prime') { failures++; t.fail(`case ${i}: the response before it: ${primed.status} ${primed.error ?? ''}`); continue; }
      // Fields of an earlier response on the connection (a trailer section, stray bytes) must not come with it.
      const foreign = primed.rawHeaders.filter((v, k) => k % 2 === 0 && !PRIME_FIELDS.has(v.toLowerCase()));
      if (foreign.length > 0) { failures++; t.fail(`case ${i}: the response before it carries fields its backend did not send: ${foreign.join(', ')}`); }
    }
    const r = await call(`${place === 'first' ? 'first' : 'case'}/${i}`);
    const bad: string[] = [];
    const text = r.body.toString('latin1'); // the oracle's bytes, one char each
    const where = answered.at(-1) ?? '';
    if (!where.startsWith(`/${place === 'first' ? 'first' : 'case'}/${i} after ${place === 'first' ? 'nothing' : place}`)) bad.push(`answered as ${answered.slice(-4).join(" | ")}`);
    if (r.error === 'client timeout' || r.status === 0 && !r.aborted) bad.push('no answer: the call waited');
    else if (want.kind === 'whole') {
      if (r.status !== want.status || text !== want.body || r.aborted) bad.push(`${r.status} ${JSON.stringify(text.slice(0, 60))}${r.aborted ? ' cut' : ''} where llhttp reads ${want.status} ${JSON.stringify(want.body.slice(0, 60))}`);
    } else if (want.kind === 'switch') {
      if (r.status !== 502 || faultOf(r)?.code !== 101509) bad.push(`a 101 answered ${r.status}`);
    } else if (r.status === 502 && faultOf(r) !== undefined) {
      // Refused before its head went out: the fault.
    } else if (!r.aborted || !want.body.startsWith(text)) {
      bad.push(`llhttp refuses it, the client got ${r.status} ${JSON.stringify(text.slice(0, 60))}${r.aborted ? ' cut' : ' whole'}`);
    }
    if (bad.length > 0) {
      failures++;
      t.fail(`case ${i} (${place}): ${bad.join(', ')}`, { bytes: JSON.stringify(bytes.toString('latin1')), fin });
    }
  }
  t.equal(failures, 0, `${CASES} cases, every invariant held`);
  t.comment([...kinds].map(([k, n]) => `${k}: ${n}`).join(', '));
  const alive = await call('prime-cl/alive');
  t.equal(alive.text, 'prime', 'the gateway still answers');
});

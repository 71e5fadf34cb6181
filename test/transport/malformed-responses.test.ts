import t from 'tap';
import fs from 'node:fs';
import type net from 'node:net';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR, eventually } from '../helpers/home.js';
import { answerEachByPath, faultOf, onEachRequestHead, primeResponse, rawBackend, request } from '../helpers/backends.js';

// Backend responses that break HTTP/1.1's syntax or framing (test/fixtures/attacks/malformed-responses.json),
// through a real gateway to a raw backend that answers each request as its path says. Every case is met in
// three places, because the sender's parser is in another state in each: as the first response on a backend
// connection, after a Content-Length response on the same kept connection (its head stopped the parser:
// STOP_AT_HEAD), and after a chunked one.

interface Case { id: string; response: string; expect: 'whole' | 'refused' | 'cut'; status?: number; delivers?: string; control: boolean; source: string }
const corpus = JSON.parse(fs.readFileSync(new URL('../fixtures/attacks/malformed-responses.json', import.meta.url), 'utf8')) as { sources: Record<string, string>; cases: Case[] };
const byId = new Map(corpus.cases.map((c) => [c.id, c]));

/**
 * The responses before a case, each with a field of its own: a response that repeated the one before byte for
 * byte would be replayed without the parser (kept-response.ts), and leave it in the state the case is not about.
 */
let primes = 0;
const PRIMES: Record<string, () => string> = {
  'prime-cl': () => primeResponse('prime-cl', ++primes),
  'prime-chunked': () => primeResponse('prime-chunked', ++primes),
};
const PLACES = ['first', 'after-cl', 'after-chunked'] as const;

/** What the backend answered: a case, where it was asked for, and the request its connection answered before it. */
interface Answered { path: string; before: string | null }

/**
 * Answers each request head by its path: `/prime-cl` and `/prime-chunked` with a good response, `/<place>/<id>`
 * with the case's bytes. A `/first/...` request that comes on a connection which answered before is not
 * answered: the backend ends that connection, and the gateway sends the request again on a new one (a
 * retryable request on a kept connection the backend closed), where it is the first.
 */
function answerByPath(answered: Answered[]) {
  return (s: net.Socket): void => answerEachByPath(s, (path, before) => {
    const [place, id] = path.slice(1).split('/');
    const prime = PRIMES[place ?? ''];
    const c = byId.get(id ?? '');
    if (prime !== undefined) return prime();
    if (place === 'first' && before !== null) return 'end';
    if (c === undefined) return 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n';
    answered.push({ path, before });
    return c.response;
  });
}

t.test('the corpus names a source for every case and holds at least a third of controls', async (t) => {
  for (const c of corpus.cases) {
    for (const s of c.source.split('; ')) t.ok(corpus.sources[s], `${c.id}: source ${s} is described`);
    t.equal(c.expect === 'whole', c.control, `${c.id}: only controls are whole`);
    if (!c.control) t.match(c.response, /leak/, `${c.id}: its bytes are marked`);
  }
  t.ok(corpus.cases.filter((c) => c.control).length * 3 >= corpus.cases.length, 'a third or more are controls');
});

t.test('a malformed backend response is refused with the fault wherever it comes on a connection; a legal one passes whole', async (t) => {
  const answered: Answered[] = [];
  const be = await rawBackend(t, answerByPath(answered));
  const s = await startSluice(t, {}, { [`${API_DIR}/mal.toml`]: apiToml({ name: 'Mal', context: '/mal', production: be.url }) });
  const call = (path: string) => request(s.url(`/mal/1.0.0/${path}`), { timeoutMs: 5000 });
  for (const c of corpus.cases) {
    for (const place of PLACES) {
      const what = `${c.control ? 'control' : 'attack'} ${c.id}, ${place}`;
      if (place !== 'first') {
        const primed = await call(place === 'after-cl' ? 'prime-cl' : 'prime-chunked');
        t.equal(primed.text, 'prime', `${what}: the response before it`);
      }
      const r = await call(`${place}/${c.id}`);
      const got = { status: r.status, error: r.error, aborted: r.aborted, text: r.text.slice(0, 300) };
      if (c.expect === 'whole') {
        t.same({ status: r.status, text: r.text, aborted: r.aborted }, { status: c.status ?? 200, text: c.delivers, aborted: false }, `${what}: passes whole`, { got });
      } else if (c.expect === 'refused') {
        t.equal(r.status, 502, `${what}: refused`, { got });
        t.equal(faultOf(r)?.code, 101509, `${what}: with the fault, at once (not the socket timeout's)`, { got });
      } else {
        t.ok(r.status === 502 ? faultOf(r)?.code === 101509 : r.aborted, `${what}: refused, or cut after its head`, { got });
      }
      t.notMatch(r.text, /leak/, `${what}: none of its bytes past the break reach the client`);
      const last = answered.at(-1);
      t.same(last, { path: `/${place}/${c.id}`, before: place === 'first' ? null : `/prime-${place.slice(6)}` }, `${what}: answered where the case says`);
    }
  }
  const after = await call('prime-cl');
  t.equal(after.text, 'prime', 'the gateway serves the next call');
});

t.test('each refusal is logged with what the backend did, llhttp\'s code found again behind a stopped head', async (t) => {
  // One backend per kind: a warning is logged once per code and backend in its window (engine/log/repeated-warnings.ts).
  const second: Record<string, string> = {
    token: 'HTTP/1.1 200 OK\r\nX Bad: 1\r\nContent-Length: 4\r\n\r\nleak',
    switch: 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n',
    zero: 'HTTP/1.1 000 Zero\r\nContent-Length: 4\r\n\r\nleak',
  };
  const files: Record<string, string> = {};
  for (const [name, bytes] of Object.entries(second)) {
    const be = await rawBackend(t, (s) => onEachRequestHead(s, (i) => s.write(i === 0 ? 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst' : bytes, 'latin1')));
    files[`${API_DIR}/${name}.toml`] = apiToml({ name, context: `/${name}`, production: be.url });
  }
  const s = await startSluice(t, {}, files);
  for (const name of Object.keys(second)) {
    t.equal((await request(s.url(`/${name}/1.0.0/a`))).text, 'first', `${name}: a Content-Length response first`);
    t.equal(faultOf(await request(s.url(`/${name}/1.0.0/b`), { timeoutMs: 5000 }))?.code, 101509, `${name}: then refused`);
  }
  const reason = (api: string): Promise<unknown> => eventually(() => s.home.logs().find((l) => l['code'] === 101509 && l['api'] === `${api}:1.0.0`)?.['reason'], `${api}'s warning`);
  t.equal(await reason('token'), 'invalid response from the backend: HPE_INVALID_HEADER_TOKEN');
  t.equal(await reason('switch'), 'invalid response from the backend: a 101 Switching Protocols no request asked for');
  t.equal(await reason('zero'), 'invalid response from the backend: status 0');
});

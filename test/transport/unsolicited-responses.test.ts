import t from 'tap';
import fs from 'node:fs';
import type net from 'node:net';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR } from '../helpers/home.js';
import { answerEachByPath, primeResponse, rawBackend, request } from '../helpers/backends.js';

// A backend response followed, in the same write, by bytes no request asked for
// (test/fixtures/attacks/unsolicited-responses.json): a whole response, one with no length, part of a head,
// an interim one, garbage. The solicited response reaches its client whole; the bytes after it reach no one;
// the connection is not used again, so they cannot become the answer to a later call (maybe another
// client's), and the io thread goes on (stop 48: a 204 followed by a response with no length crashed it on
// the next call). Controls: the same responses alone, on a connection the next call uses again. Each case
// comes in three places, where the sender's parser is in a different state: first on a connection, after a
// Content-Length response (its head stopped the parser) and after a chunked one.

interface Case { id: string; method: 'GET' | 'HEAD'; response: string; status: number; delivers: string; control: boolean; source: string }
const corpus = JSON.parse(fs.readFileSync(new URL('../fixtures/attacks/unsolicited-responses.json', import.meta.url), 'utf8')) as { sources: Record<string, string>; cases: Case[] };
const byId = new Map(corpus.cases.map((c) => [c.id, c]));

/** The responses before a case and after it, each with a field of its own (a repeated read is replayed: kept-response.ts). */
let n = 0;
const GOOD: Record<string, () => string> = {
  'prime-cl': () => primeResponse('prime-cl', ++n),
  'prime-chunked': () => primeResponse('prime-chunked', ++n),
  next: () => `HTTP/1.1 200 OK\r\nX-Next: ${++n}\r\nContent-Length: 4\r\n\r\nnext`,
};
const PLACES = ['first', 'after-cl', 'after-chunked'] as const;

/** A request the backend read: its path, and the one its connection carried before (null: a new connection). */
interface Seen { path: string; before: string | null }

/**
 * Answers by path: `/prime-cl`, `/prime-chunked` and `/next/...` with a good response, `/<place>/<id>` with the
 * case's bytes in one write. `/first/...` on a connection that answered before is not answered: the backend
 * ends that connection and the gateway sends the request again on a new one, where it is the first.
 */
function answerByPath(seen: Seen[]) {
  return (s: net.Socket): void => answerEachByPath(s, (path, before) => {
    seen.push({ path, before });
    const [what = '', id] = path.slice(1).split('/');
    const good = GOOD[what];
    const c = byId.get(id ?? '');
    if (good !== undefined) return good();
    if (what === 'first' && before !== null) return 'end';
    return c ? c.response : 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n';
  });
}

t.test('the corpus names a source for every case, marks the bytes no request asked for, and holds controls', async (t) => {
  for (const c of corpus.cases) {
    for (const s of c.source.split('; ')) t.ok(corpus.sources[s], `${c.id}: source ${s} is described`);
    t.equal(c.id.startsWith('ctl-'), c.control, `${c.id}: named as what it is`);
    if (!c.control) t.ok(c.response.includes('leak') || c.response.split('HTTP/1.1 ').length > 2, `${c.id}: carries bytes after its response`);
  }
  t.ok(corpus.cases.filter((c) => c.control).length * 4 >= corpus.cases.length, 'a quarter or more are controls');
});

t.test('bytes after a response that no request asked for reach no client, and their connection is not used again; a response alone keeps it', async (t) => {
  const seen: Seen[] = [];
  const be = await rawBackend(t, answerByPath(seen));
  const s = await startSluice(t, {}, { [`${API_DIR}/uns.toml`]: apiToml({ name: 'Uns', context: '/uns', production: be.url, verbs: ['GET', 'HEAD'] }) });
  const call = (path: string, method = 'GET') => request(s.url(`/uns/1.0.0/${path}`), { method, timeoutMs: 5000 });
  for (const c of corpus.cases) {
    for (const place of PLACES) {
      const what = `${c.control ? 'control' : 'attack'} ${c.id}, ${place}`;
      if (place !== 'first') t.equal((await call(place === 'after-cl' ? 'prime-cl' : 'prime-chunked')).text, 'prime', `${what}: the response before it`);
      const casePath = `/${place}/${c.id}`;
      const r = await call(casePath.slice(1), c.method);
      t.same({ status: r.status, text: r.text, aborted: r.aborted }, { status: c.status, text: c.delivers, aborted: false }, `${what}: its own response reaches the client whole`);
      const next = await call(`next/${c.id}-${place}`);
      t.same({ status: next.status, text: next.text }, { status: 200, text: 'next' }, `${what}: the next call gets its own answer`);
      const asked = seen.at(-1);
      t.same(asked, { path: `/next/${c.id}-${place}`, before: c.control ? casePath : null },
        c.control ? `${what}: on the same connection, kept` : `${what}: on a new connection, the one with the stray bytes closed`);
    }
  }
  t.ok((await call('prime-cl')).text === 'prime', 'the gateway serves the next call');
  t.notOk(s.home.logs().some((l) => l['level'] === 'fatal' || /uncaught/.test(String(l['msg']))), 'no io thread failed on the way');
});

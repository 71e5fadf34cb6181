import t from 'tap';
import fs from 'node:fs';
import type net from 'node:net';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR } from '../helpers/home.js';
import { faultOf, onEachRequestHead, rawBackend, request } from '../helpers/backends.js';

// A backend's framing fields in every spelling of their names (test/fixtures/attacks/response-length-fields.json):
// the gateway frames each response as the usual spelling does, through a real gateway and a raw backend that
// records what it was asked and answers each request by the case its path names.

interface Case { id: string; fields: string; body: string; delivers: string; expect: 'whole' | 'refused'; control?: boolean }
const corpus = JSON.parse(fs.readFileSync(new URL('../fixtures/attacks/response-length-fields.json', import.meta.url), 'utf8')) as { cases: Case[] };
const byId = new Map(corpus.cases.map((c) => [c.id, c]));

/**
 * Answers every request head on a connection with the response of the case its path names, and records the
 * paths. Each response has a field of its own: one that repeated the response before it byte for byte would
 * be replayed without the parser (kept-response.ts), and leave the parser in a state the case is not about.
 */
let answers = 0;
function answerCases(seen: string[]) {
  return (s: net.Socket): void => {
    onEachRequestHead(s, (_index, _method, path) => {
      seen.push(path);
      const c = byId.get(path.slice(1));
      if (!c) s.write('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
      else s.write(`HTTP/1.1 200 OK\r\nX-Answer: ${++answers}\r\n${c.fields}\r\n\r\n${c.body}`);
    });
  };
}

t.test('a backend\'s Content-Length and Transfer-Encoding frame its response in any spelling of their names', async (t) => {
  const seen: string[] = [];
  const be = await rawBackend(t, answerCases(seen));
  const s = await startSluice(t, {}, { [`${API_DIR}/resp.toml`]: apiToml({ name: 'Resp', context: '/resp', production: be.url }) });
  const whole = corpus.cases.filter((c) => c.expect === 'whole');
  for (const c of whole) {
    const r = await request(s.url(`/resp/1.0.0/${c.id}`));
    t.equal(r.status, 200, `${c.id}: answered`);
    t.equal(r.text, c.delivers, `${c.id}: the body and nothing more`);
    t.notOk(r.aborted, `${c.id}: a whole response`);
    // The next call on the same backend connection gets its own response: nothing of this one was left over.
    const after = await request(s.url('/resp/1.0.0/cl-usual'));
    t.equal(after.text, 'cl-usual!', `${c.id}: the call after it gets its own response`);
  }
  t.same(seen, whole.flatMap((c) => [`/${c.id}`, '/cl-usual']), 'the backend was asked each case once, in order, each followed by the call after it');
  t.equal(be.connections(), 1, 'all over one kept-alive backend connection');
  t.ok(whole.some((c) => c.control) && whole.some((c) => !c.control), 'the corpus holds controls and attacks');
});

// Each refused case comes after a Content-Length response on the same kept connection, whose head stopped the
// parser (STOP_AT_HEAD); until stop 47, llhttp's error in the next head went unreported there and the call
// waited for the socket timeout. test/transport/malformed-responses.test.ts meets each malformed response
// first on its connection, after a Content-Length response and after a chunked one.
t.test('a backend response with both Transfer-Encoding and Content-Length, in any spelling, is refused with the fault', async (t) => {
  const seen: string[] = [];
  const be = await rawBackend(t, answerCases(seen));
  const s = await startSluice(t, {}, { [`${API_DIR}/resp.toml`]: apiToml({ name: 'Resp', context: '/resp', production: be.url }) });
  const refused = corpus.cases.filter((c) => c.expect === 'refused');
  t.ok(refused.length > 0);
  for (const c of refused) {
    const before = await request(s.url('/resp/1.0.0/cl-usual'));
    t.equal(before.text, 'cl-usual!', `${c.id}: the response before it`);
    const r = await request(s.url(`/resp/1.0.0/${c.id}`), { timeoutMs: 5000 });
    t.equal(r.status, 502, `${c.id}: refused`);
    t.equal(faultOf(r)?.code, 101509, `${c.id}: with the fault, at once (not the socket timeout's)`);
    t.notMatch(r.text, /te-with-cl/, `${c.id}: none of the body reaches the client`);
  }
  const after = await request(s.url('/resp/1.0.0/cl-usual'));
  t.equal(after.text, 'cl-usual!', 'the gateway serves the next call');
  t.same(seen, [...refused.flatMap((c) => ['/cl-usual', `/${c.id}`]), '/cl-usual'], 'the backend was asked each case once, each after a Content-Length response');
  t.equal(be.connections(), refused.length + 1, 'each case on the kept connection of the response before it (a refusal closes its connection)');
});

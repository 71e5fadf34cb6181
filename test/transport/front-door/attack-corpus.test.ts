import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSluice } from '../../helpers/sluice.js';
import { API_DIR } from '../../helpers/home.js';
import { recordingBackend, rawRequest } from '../../helpers/recording-backend.js';
import { travApi } from '../../helpers/trav-api.js';

// The front door's attack corpus (test/fixtures/front-door/README.md): raw requests gathered from public
// suites and advisories, each sent over a real socket to a real gateway, with a recording backend saying
// what got through. Controls are legal requests that must pass: a failing control means the door is too
// strict.

interface Expected {
  readonly status: number | readonly number[];
  readonly faultCode?: number;
  readonly backend: readonly { readonly line: string; readonly body?: string }[];
  readonly responses?: readonly number[];
  readonly closed?: boolean;
}
interface Case {
  readonly id: string;
  readonly source: string;
  readonly request?: string;
  readonly chunks?: readonly string[];
  readonly expect: Expected;
  readonly control?: boolean;
  readonly note?: string;
  readonly fin?: number;
}

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/front-door');
const FILES = ['request-target.json', 'framing.json', 'limits.json', 'keep-alive.json'].filter((f) => fs.existsSync(path.join(DIR, f)));
/** keep-alive.json's stalled heads are answered after client_header_timeout: its gateway waits 1 s, not the default. */
const FILE_CONF: Record<string, Record<string, unknown>> = { 'keep-alive.json': { passthru_http: { client_header_timeout: '1s' } } };


t.test('every file of the corpus is present and well formed', async (t) => {
  t.same(FILES, ['request-target.json', 'framing.json', 'limits.json', 'keep-alive.json'], 'the four corpus files');
  for (const f of FILES) {
    const cases = JSON.parse(fs.readFileSync(path.join(DIR, f), 'utf8')) as Case[];
    const ids = new Set<string>();
    for (const c of cases) {
      t.ok(c.id && !ids.has(c.id), `${f}: ${c.id}: a unique id`);
      ids.add(c.id);
      t.ok(c.source, `${f}: ${c.id}: names its source`);
      t.ok((c.request === undefined) !== (c.chunks === undefined), `${f}: ${c.id}: request or chunks`);
    }
    t.ok(cases.filter((c) => c.control).length * 3 >= cases.length * 0.9, `${f}: about a third or more are controls`);
  }
});

for (const file of FILES) {
  t.test(`the corpus ${file}: each attack is refused or neutralised, each control passes`, async (t) => {
    const cases = JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')) as Case[];
    const be = await recordingBackend(t);
    const s = await startSluice(t, FILE_CONF[file] ?? {}, { [`${API_DIR}/trav.toml`]: travApi(be.url) });
    const port = s.home.ports.http;
    for (const c of cases) {
      be.reset();
      const chunks = (c.chunks ?? [c.request!]).map((x) => Buffer.from(x, 'latin1'));
      const want = c.expect;
      const r = await rawRequest(port, chunks, want.responses?.length ?? 1, 4000, c.fin ?? -1);
      const what = `${c.control ? 'control' : 'attack'} ${c.id}`;
      const statuses = Array.isArray(want.status) ? want.status : [want.status];
      t.ok(statuses.includes(r.statuses[0]!), `${what}: status ${r.statuses[0]} in ${statuses.join('/')}`, { got: r.text.slice(0, 400), note: c.note });
      if (want.responses) t.same(r.statuses, want.responses, `${what}: responses in order`);
      if (want.faultCode !== undefined) t.match(r.text, new RegExp(`"code":${want.faultCode}\\b`), `${what}: fault ${want.faultCode}`);
      if (want.closed) t.ok(r.closed, `${what}: the connection is closed after the answer`);
      // The backend may still be reading what a refused request left half-sent: what reached it is judged
      // once its requests are complete.
      t.same(be.seen.map((x) => x.line), want.backend.map((x) => x.line), `${what}: what reached the backend`);
      for (let i = 0; i < want.backend.length && i < be.seen.length; i++) {
        const body = want.backend[i]!.body;
        if (body !== undefined) t.equal(be.seen[i]!.body.toString('latin1'), body, `${what}: body ${i} as re-framed`);
      }
      t.same(be.malformed, [], `${what}: nothing malformed reached the backend`);
    }
    const control = await rawRequest(port, [Buffer.from('GET /trav/v1/still-serving HTTP/1.1\r\nHost: gw\r\n\r\n')], 1);
    t.equal(control.statuses[0], 200, 'the gateway still serves after the corpus');
  });
}

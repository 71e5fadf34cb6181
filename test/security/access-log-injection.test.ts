// The combined access log writes two request headers a client chooses (User-Agent, Referer) into every
// line. With the corpus of log-values.json (forged lines, terminal escapes, Unicode line breaks; controls
// that must pass) sent on raw sockets to a real gateway: every line of http_access.log keeps the combined
// format's fields, the file holds no raw control or non-ASCII byte, and each accepted call has exactly one
// line, its header shown as the format escapes it. The lines come from the io thread's batch written as
// bytes (engine/operations/access-log-batch.ts).
import t from 'tap';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSluice } from '../helpers/sluice.js';
import { apiToml, API_DIR, eventually } from '../helpers/home.js';
import { echoBackend } from '../helpers/backends.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
interface LogCase { readonly id: string; readonly value: string; readonly expect: 'escaped' | 'unchanged'; readonly source: string }
const corpus = JSON.parse(fs.readFileSync(path.join(HERE, '../fixtures/attacks/log-values.json'), 'utf8')) as { values: LogCase[] };

/** A quoted field of docs/operations.md's combined line: `"` and `\` escaped, anything else outside printable ASCII as \xNN. */
const QUOTED = String.raw`"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\]|\\x[0-9a-f]{2}|%[0-9A-F]{2})*"`;
const LINE = new RegExp(String.raw`^\S+ - \S+ \[\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d \+0000\] ${QUOTED} \d{3} (?:\d+|-) ${QUOTED} ${QUOTED} \d+\.\d{3} \S+ \S+ (?:\d+|-)$`);

/** The field the format gives the header's bytes (an oracle written from the documented rule, not from the code). */
function shown(bytes: Buffer): string {
  let out = '';
  for (const b of bytes) {
    if (b === 0x22 || b === 0x5c) out += '\\' + String.fromCharCode(b);
    else if (b >= 0x20 && b <= 0x7e) out += String.fromCharCode(b);
    else out += `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return `"${out}"`;
}

/** One request on its own connection, the header's bytes as given; resolves with the status (0: no answer). */
function send(port: number, target: string, header: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => { got = Buffer.concat([got, d]); });
    socket.on('error', () => {});
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(got.toString('latin1'))?.[1] ?? 0)));
    socket.write(Buffer.concat([
      Buffer.from(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nUser-Agent: `, 'latin1'), header,
      Buffer.from('\r\nReferer: ', 'latin1'), header, Buffer.from('\r\n\r\n', 'latin1'),
    ]));
  });
}

t.test('hostile User-Agent and Referer values cannot forge or break an access log line; the controls pass', async (t) => {
  const backend = await echoBackend(t);
  const s = await startSluice(t, { http_access_log: { enabled: true } }, {
    [`${API_DIR}/acc.toml`]: apiToml({ name: 'Acc', context: '/acc', production: backend.url, verbs: ['GET'] }),
  });
  const port = s.home.ports.http;
  const sent: { c: LogCase; bytes: Buffer; status: number }[] = [];
  for (const c of corpus.values) {
    const bytes = Buffer.from(c.value, 'utf8');
    sent.push({ c, bytes, status: await send(port, `/acc/1.0.0/${c.id}`, bytes) });
  }
  for (const { c, status } of sent) {
    t.not(status, 0, `${c.id}: answered (${status})`);
    if (c.expect === 'unchanged') t.equal(status, 200, `${c.id}: a control is served (a refusal: the door is too strict)`);
  }
  const accepted = sent.filter((x) => x.status === 200);
  const file = path.join(s.home.dir, 'repository/logs/http_access.log');
  const lines = await eventually(() => {
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'latin1') : '';
    const all = text.split('\n').filter(Boolean);
    return accepted.every((x) => all.some((l) => l.includes(` /acc/1.0.0/${x.c.id} `))) ? all : null;
  }, 'a line for every accepted call');
  const raw = fs.readFileSync(file);
  // eslint-disable-next-line no-control-regex
  t.notOk(/[\x00-\x09\x0b-\x1f\x7f-\xff]/.test(raw.toString('latin1')), 'no raw control or non-ASCII byte in the file');
  for (const l of lines) t.match(l, LINE, `a line of the combined format: ${l.slice(0, 120)}`);
  for (const { c, bytes } of accepted) {
    // What the gateway took as the header's value is what it forwarded as the Referer: the recording
    // backend says (a CRLF in the value ends the header at the HTTP level, and the rest is a header of its
    // own). The User-Agent carries the same bytes; the gateway sends the backend a User-Agent of its own.
    const seen = backend.seen.find((r) => r.url === `/${c.id}`);
    t.ok(seen, `${c.id}: reached the backend`);
    const agent = Buffer.from(String(seen?.headers['referer'] ?? ''), 'latin1');
    if (c.expect === 'unchanged') t.ok(agent.equals(bytes), `${c.id}: a control reached the backend as sent`);
    const mine = lines.filter((l) => l.includes(` /acc/1.0.0/${c.id} `));
    t.equal(mine.length, 1, `${c.id}: one line`);
    const field = shown(agent);
    t.ok(mine[0]!.includes(` 200 `) && mine[0]!.includes(` ${field} ${field} `), `${c.id}: Referer and User-Agent shown as ${field}`);
  }
  t.ok(accepted.length >= 4, `${accepted.length} of ${sent.length} values reached the log (the controls among them)`);
});

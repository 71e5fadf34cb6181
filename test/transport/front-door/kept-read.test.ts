import t from 'tap';
import net from 'node:net';
import pino from 'pino';
import { startSluice } from '../../helpers/sluice.js';
import { API_DIR, apiToml } from '../../helpers/home.js';
import { recordingBackend, statusesOf, type RecordingBackend } from '../../helpers/recording-backend.js';
import { ownIoThread } from '../../helpers/own-io-thread.js';
import type { GatewayThread } from '../../../engine/gateway/gateway-thread.js';
import { RequestHead } from '../../../transport/front-door/request-head.js';

// A read that repeats the io thread's kept read (one whole request, its body by Content-Length, and nothing
// else) is answered from it without llhttp (transport/front-door/kept-read.ts). It is only as safe as the two judgements around it:
// which reads are kept, and whether the connection's parser stands between messages when a read repeats one.
// Each attack below sends the kept bytes where llhttp would make something else of them; the backend must
// see what llhttp makes, and the counter of replayed reads says whether the kept read was used at all.

const GET = (p: string, extra = ''): Buffer => Buffer.from(`GET /kr/v1${p} HTTP/1.1\r\nHost: gw\r\n${extra}\r\n`, 'latin1');

async function gateway(t: Parameters<typeof startSluice>[0], slow: RegExp | null = null): Promise<{ be: RecordingBackend; port: number; thread: GatewayThread }> {
  const be = await recordingBackend(t, { answerAfterMs: (line) => (slow !== null && slow.test(line) ? 400 : 0) });
  const s = await startSluice(t, { passthru_http: { io_threads_per_reactor: 1 } }, {
    [`${API_DIR}/kr.toml`]: apiToml({ name: 'Kr', context: '/kr', version: 'v1', production: `${be.url}/base` }),
  });
  const { thread, port } = await ownIoThread(t, s, pino({ level: 'silent' }));
  await thread.listen();
  return { be, port, thread };
}

/** A client connection that writes each part as a read of its own and counts the answers it got. */
class Client {
  private readonly s: net.Socket;
  text = '';
  closed = false;

  private constructor(s: net.Socket) {
    this.s = s;
    s.on('data', (d: Buffer) => { this.text += d.toString('latin1'); });
    s.on('close', () => { this.closed = true; });
    s.on('error', () => {});
  }

  static open(t: { teardown(fn: () => unknown): void }, port: number): Promise<Client> {
    return new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => resolve(new Client(s)));
      t.teardown(() => s.destroy());
    });
  }

  /** Writes `b`, then waits long enough that the next write is a read of its own. */
  async send(b: Buffer): Promise<void> {
    this.s.write(b);
    await new Promise((r) => setTimeout(r, 40));
  }

  statuses(): number[] {
    return statusesOf(this.text);
  }

  /** Waits until `n` answers arrived (or the connection closed, or 3 s passed). */
  async answers(n: number): Promise<number[]> {
    for (let i = 0; i < 150 && this.statuses().length < n && !this.closed; i++) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 60));
    return this.statuses();
  }
}

t.test('a read that repeats a whole head is replayed, on its own connection and on others, and reaches the backend as sent', async (t) => {
  const { be, port, thread } = await gateway(t);
  const head = GET('/same?q=1', 'Authorization: Bearer abc.def.ghi\r\nX-Pad: 12345\r\n');
  const a = await Client.open(t, port);
  const b = await Client.open(t, port);
  for (let i = 0; i < 3; i++) { await a.send(head); await a.answers(i + 1); }
  for (let i = 0; i < 2; i++) { await b.send(head); await b.answers(i + 1); }
  t.same(a.statuses(), [200, 200, 200]);
  t.same(b.statuses(), [200, 200]);
  t.equal(be.seen.length, 5, 'every read is a call');
  for (const r of be.seen) {
    t.equal(r.line, 'GET /base/same?q=1 HTTP/1.1');
    t.equal(r.headers['authorization'], 'Bearer abc.def.ghi');
    t.equal(r.headers['x-pad'], '12345');
  }
  t.equal(thread.door.kept.hits, 4, 'all but the first read were replayed');
});

t.test('a read that differs from the kept one by one byte is parsed (control)', async (t) => {
  const { be, port, thread } = await gateway(t);
  const a = await Client.open(t, port);
  await a.send(GET('/aa')); await a.answers(1);
  await a.send(GET('/ab')); await a.answers(2);
  await a.send(GET('/ab', 'X-V: 1\r\n')); await a.answers(3);
  await a.send(GET('/ab', 'X-V: 2\r\n')); await a.answers(4);
  t.same(a.statuses(), [200, 200, 200, 200]);
  t.same(be.seen.map((r) => r.line), ['GET /base/aa HTTP/1.1', 'GET /base/ab HTTP/1.1', 'GET /base/ab HTTP/1.1', 'GET /base/ab HTTP/1.1']);
  t.same(be.seen.map((r) => r.headers['x-v']), [undefined, undefined, '1', '2']);
  t.equal(thread.door.kept.hits, 0);
});

t.test('the kept bytes inside a later head that has begun are part of that head (attack)', async (t) => {
  const { be, port, thread } = await gateway(t);
  const a = await Client.open(t, port);
  const b = await Client.open(t, port);
  await b.send(GET('/first')); await b.answers(1);
  await a.send(GET('/kept')); await a.answers(1);
  // b is between messages after its first call: the next head begins, then the kept bytes end it as a value.
  await b.send(Buffer.from('GET /kr/v1/second HTTP/1.1\r\nX-Pad: '));
  await b.send(GET('/kept'));
  t.same(await b.answers(2), [200, 200]);
  t.same(be.seen.map((r) => r.line), ['GET /base/first HTTP/1.1', 'GET /base/kept HTTP/1.1', 'GET /base/second HTTP/1.1']);
  t.equal(be.seen[2]?.headers['x-pad'], 'GET /kr/v1/kept HTTP/1.1', 'the kept bytes were a field value of the second head');
  t.equal(thread.door.kept.hits, 0, 'nothing was replayed');
});

t.test('a read that held the start of a next head is never kept (attack)', async (t) => {
  const { be, port, thread } = await gateway(t);
  const first = Buffer.concat([GET('/one'), Buffer.from('GET /kr/v1/two HTTP/1.1\r\n')]);
  const rest = Buffer.from('Host: gw\r\n\r\n');
  const a = await Client.open(t, port);
  const b = await Client.open(t, port);
  // Replayed as its one whole head, the same read on b would drop the begun head, and `rest` would be refused.
  await a.send(first);
  await b.send(first);
  await a.send(rest);
  await b.send(rest);
  t.same(await a.answers(2), [200, 200]);
  t.same(await b.answers(2), [200, 200]);
  t.same(be.seen.map((r) => r.line).sort(), ['GET /base/one HTTP/1.1', 'GET /base/one HTTP/1.1', 'GET /base/two HTTP/1.1', 'GET /base/two HTTP/1.1']);
  t.equal(thread.door.kept.hits, 0);
});

t.test('a read that held two whole heads is never kept (attack)', async (t) => {
  const { be, port, thread } = await gateway(t);
  const two = Buffer.concat([GET('/one'), GET('/two')]);
  for (let i = 0; i < 2; i++) {
    const c = await Client.open(t, port);
    await c.send(two);
    t.same(await c.answers(2), [200, 200]);
  }
  t.same(be.seen.map((r) => r.line), ['GET /base/one HTTP/1.1', 'GET /base/two HTTP/1.1', 'GET /base/one HTTP/1.1', 'GET /base/two HTTP/1.1']);
  t.equal(thread.door.kept.hits, 0);
});

t.test('the kept bytes after a Connection: close head are not a request (attack)', async (t) => {
  const { be, port, thread } = await gateway(t, /\/slow /);
  const a = await Client.open(t, port);
  await a.send(GET('/kept')); await a.answers(1);
  const b = await Client.open(t, port);
  // The first answer is slow: the kept bytes arrive while b's connection is still open, after a close head.
  await b.send(GET('/slow', 'Connection: close\r\n'));
  await b.send(GET('/kept'));
  const got = await b.answers(2);
  t.equal(got[0], 200, 'the close head is answered');
  t.ok(b.closed, 'then the connection closes');
  t.same(be.seen.map((r) => r.line), ['GET /base/kept HTTP/1.1', 'GET /base/slow HTTP/1.1'], 'the bytes after it never reached the backend');
  t.equal(thread.door.kept.hits, 0);
});

t.test('the kept bytes as a request body are body (attack)', async (t) => {
  const { be, port, thread } = await gateway(t);
  const kept = GET('/kept');
  const a = await Client.open(t, port);
  await a.send(kept); await a.answers(1);
  const b = await Client.open(t, port);
  await b.send(Buffer.from(`POST /kr/v1/post HTTP/1.1\r\nHost: gw\r\nContent-Length: ${kept.length}\r\n\r\n`));
  await b.send(kept);
  t.same(await b.answers(1), [200]);
  t.same(be.seen.map((r) => r.line), ['GET /base/kept HTTP/1.1', 'POST /base/post HTTP/1.1']);
  t.equal(be.seen[1]?.body.toString('latin1'), kept.toString('latin1'), 'the kept bytes are the body');
  t.equal(thread.door.kept.hits, 0);
});

t.test('after a request with a body, a repeated read is replayed once the parser stands between messages (control)', async (t) => {
  const { be, port, thread } = await gateway(t);
  const kept = GET('/kept');
  const a = await Client.open(t, port);
  await a.send(kept); await a.answers(1);
  // The body in a read of its own: a POST read whole would be the kept read itself.
  await a.send(Buffer.from('POST /kr/v1/post HTTP/1.1\r\nHost: gw\r\nContent-Length: 5\r\n\r\n'));
  await a.send(Buffer.from('hello')); await a.answers(2);
  await a.send(kept); await a.answers(3);
  t.same(a.statuses(), [200, 200, 200]);
  t.same(be.seen.map((r) => r.line), ['GET /base/kept HTTP/1.1', 'POST /base/post HTTP/1.1', 'GET /base/kept HTTP/1.1']);
  t.equal(be.seen[1]?.body.toString(), 'hello');
  t.equal(thread.door.kept.hits, 1, 'the parser was asked, and it stood between messages');
});

t.test('a replayed head still meets the door: a refused head is never kept', async (t) => {
  const { be, port, thread } = await gateway(t);
  // No Host: refused with 400 each time, and the connection closes; a kept copy would skip nothing, but it
  // must not exist either (a refusal stops the parse).
  for (let i = 0; i < 2; i++) {
    const c = await Client.open(t, port);
    await c.send(Buffer.from('GET /kr/v1/x HTTP/1.1\r\n\r\n'));
    t.same(await c.answers(1), [400]);
  }
  t.equal(be.seen.length, 0);
  t.equal(thread.door.kept.hits, 0);
});

t.test('a replayed head is a copy with every field of the head the door made, and fields of its own', async (t) => {
  const h = new RequestHead();
  // A distinct value in every field, whatever its type: a field the copy forgot keeps its default and differs.
  let i = 0;
  for (const k of Object.keys(h) as (keyof RequestHead)[]) {
    const v = h[k];
    const rec = h as unknown as Record<string, unknown>;
    rec[k] = typeof v === 'number' ? 1000 + i : typeof v === 'boolean' ? !v : Array.isArray(v) ? ['x-f', `v${i}`] : `s${i}`;
    i++;
  }
  const c = h.copy();
  t.same({ ...c }, { ...h }, 'every field');
  t.not(c.headers, h.headers, 'an array of its own');
  c.headers.push('x-more', '1');
  t.equal(h.headers.length, 2, 'what a call does to its head leaves the kept one alone');
});

const POST = (p: string, body: string, extra = ''): Buffer =>
  Buffer.from(`POST /kr/v1${p} HTTP/1.1\r\nHost: gw\r\nContent-Length: ${Buffer.byteLength(body, 'latin1')}\r\n${extra}\r\n${body}`, 'latin1');

t.test('repeated POSTs with one head and other bodies are replayed, each with its own body (control)', async (t) => {
  const { be, port, thread } = await gateway(t);
  const a = await Client.open(t, port);
  const b = await Client.open(t, port);
  const bodies = ['{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}'];
  for (let i = 0; i < bodies.length; i++) {
    const c = i < 3 ? a : b;
    await c.send(POST('/p', bodies[i]!, 'Content-Type: application/json\r\n'));
    await c.answers(i < 3 ? i + 1 : 1);
  }
  t.same(a.statuses(), [200, 200, 200]);
  t.same(b.statuses(), [200]);
  t.same(be.seen.map((r) => r.line), Array(4).fill('POST /base/p HTTP/1.1'));
  t.same(be.seen.map((r) => r.body.toString('latin1')), bodies, 'each call has its own body');
  t.same(be.seen.map((r) => r.headers['content-length']), Array(4).fill('7'));
  t.equal(thread.door.kept.hits, 3, 'all but the first read were replayed');
});

t.test('a replayed body that holds a whole request is body (attack)', async (t) => {
  const { be, port, thread } = await gateway(t);
  const inner1 = GET('/smuggled1').toString('latin1');
  const inner2 = GET('/smuggled2').toString('latin1');
  const a = await Client.open(t, port);
  await a.send(POST('/p', inner1)); await a.answers(1);
  await a.send(POST('/p', inner2)); await a.answers(2);
  t.same(a.statuses(), [200, 200], 'one answer a read');
  t.same(be.seen.map((r) => r.line), ['POST /base/p HTTP/1.1', 'POST /base/p HTTP/1.1'], 'no smuggled request reached the backend');
  t.same(be.seen.map((r) => r.body.toString('latin1')), [inner1, inner2]);
  t.equal(thread.door.kept.hits, 1);
});

t.test('the kept head with more body bytes than its length, or fewer, is parsed (attack)', async (t) => {
  const { be, port, thread } = await gateway(t);
  const a = await Client.open(t, port);
  await a.send(POST('/p', 'hello')); await a.answers(1);
  // One byte more: llhttp reads it as the start of a next message, which the rest makes a request.
  await a.send(Buffer.concat([POST('/p', 'world'), Buffer.from('G')]));
  await a.send(Buffer.from('ET /kr/v1/next HTTP/1.1\r\nHost: gw\r\n\r\n')); await a.answers(3);
  // Fewer: the body goes on in the next read.
  const short = POST('/p', 'abcde');
  await a.send(short.subarray(0, short.length - 2));
  await a.send(short.subarray(short.length - 2)); await a.answers(4);
  t.same(a.statuses(), [200, 200, 200, 200]);
  t.same(be.seen.map((r) => r.line), ['POST /base/p HTTP/1.1', 'POST /base/p HTTP/1.1', 'GET /base/next HTTP/1.1', 'POST /base/p HTTP/1.1']);
  t.same(be.seen.map((r) => r.body.toString('latin1')), ['hello', 'world', '', 'abcde']);
  t.equal(thread.door.kept.hits, 0, 'neither read was the kept one');
});

t.test('a chunked request is never kept (attack)', async (t) => {
  const { be, port, thread } = await gateway(t);
  // The data ends with CR LF, so the 4 bytes before the read's last 5 (as many as the data) are a blank
  // line: only the framing check keeps the read from being taken for a 5-byte body after a longer head.
  const chunked = Buffer.from('POST /kr/v1/c HTTP/1.1\r\nHost: gw\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabc\r\n\r\n0\r\n\r\n');
  const a = await Client.open(t, port);
  for (let i = 0; i < 3; i++) { await a.send(chunked); await a.answers(i + 1); }
  t.same(a.statuses(), [200, 200, 200]);
  t.same(be.seen.map((r) => r.body.toString('latin1')), ['abc\r\n', 'abc\r\n', 'abc\r\n']);
  t.equal(thread.door.kept.hits, 0);
});

t.test('a replayed POST that asked to continue is answered as the parsed one was (control)', async (t) => {
  const { be, port, thread } = await gateway(t);
  const ask = POST('/e', 'hello', 'Expect: 100-continue\r\n');
  const a = await Client.open(t, port);
  await a.send(ask); await a.answers(1);
  const parsed = a.text;
  await a.send(ask); await a.answers(2);
  const replayed = a.text.slice(parsed.length);
  const shape = (s: string) => s.replace(/date: [^\r]*/i, 'date: -');
  t.equal(shape(replayed), shape(parsed), 'the same bytes answered');
  t.same(be.seen.map((r) => r.body.toString('latin1')), ['hello', 'hello']);
  t.equal(thread.door.kept.hits, 1);
});

import t from 'tap';
import pino from 'pino';
import WebSocket from 'ws';
import { startSluice } from '../helpers/sluice.js';
import { API_DIR } from '../helpers/home.js';
import { ownIoThread } from '../helpers/own-io-thread.js';
import { wsApiToml, wsBackend, wsOpen } from '../helpers/websockets.js';
import { PhaseResult } from '../../engine/kernel/phase.js';
import { numberField } from '../../transport/number-lines.js';
import type { Call } from '../../engine/kernel/call.js';

// The 101 that completes a WebSocket handshake carries the headers the phases added for the client (ws writes
// them as they are). They are checked as on every HTTP answer: one no head may carry turns the handshake into
// the 101510 fault, and the backend is never asked.

const NUMBER = numberField('X-Count');

t.test('headers the phases added reach the 101; one no head may carry refuses the handshake before the backend is asked', async (t) => {
  const be = await wsBackend(t);
  const s = await startSluice(t, { passthru_http: { io_threads_per_reactor: 1 } }, {
    [`${API_DIR}/ws.toml`]: wsApiToml({ name: 'Ws', context: '/ws', production: be.url, authType: 'None' }),
  });
  const { thread, port } = await ownIoThread(t, s, pino({ level: 'silent' }));
  const base = thread.pipeline;
  const use = (step: (c: Call) => number): void => {
    thread.pipeline = { names: [...base.names, 'test-added'], steps: [...base.steps, step] as typeof base.steps };
  };
  await thread.listen();
  const url = `ws://127.0.0.1:${port}/ws/1.0.0`;

  use((c) => { c.addResponseNumber(NUMBER, 42); return PhaseResult.CONTINUE; });
  const upgrade = await new Promise<{ headers: Record<string, unknown> } | { error: string }>((resolve) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    let headers: Record<string, unknown> = {};
    ws.on('upgrade', (res) => { headers = res.headers; });
    ws.on('open', () => { ws.close(); resolve({ headers }); });
    ws.on('error', (e) => resolve({ error: e.message }));
  });
  t.notOk('error' in upgrade, 'upgraded');
  t.equal('headers' in upgrade ? upgrade.headers['x-count'] : undefined, '42', 'the number is on the 101');
  t.equal(be.handshakes.length, 1, 'the backend was asked');

  use((c) => { c.addResponseHeaders('x-bad', 'a\r\nset-cookie: injected=1'); return PhaseResult.CONTINUE; });
  const refused = await wsOpen(url);
  t.equal(refused.status, 500, 'answered 500');
  t.match(refused.body ?? '', /"code":101510/, 'with the 101510 fault');
  t.equal(refused.headers?.['set-cookie'], undefined, 'the injected field never reached the client');
  t.equal(be.handshakes.length, 1, 'the backend was not asked');
});

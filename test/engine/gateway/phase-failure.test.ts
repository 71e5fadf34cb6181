import t from 'tap';
import pino from 'pino';
import { startSluice } from '../../helpers/sluice.js';
import { API_DIR, apiToml } from '../../helpers/home.js';
import { echoBackend, faultOf, request } from '../../helpers/backends.js';
import { ownIoThread } from '../../helpers/own-io-thread.js';
import { PhaseResult, type GatewayPhase } from '../../../engine/kernel/phase.js';

// A phase that throws is a bug; the call still gets the documented fault (101510, 500) naming the phase, the
// log says which phase failed with its stack, and the thread goes on serving.
t.test('a phase that throws answers 101510 naming the phase, logs it, and the next calls are served', async (t) => {
  const be = await echoBackend(t);
  const s = await startSluice(t, { passthru_http: { io_threads_per_reactor: 1 } }, {
    [`${API_DIR}/echo.toml`]: apiToml({ name: 'Echo', context: '/echo', production: be.url }),
  });
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as Record<string, unknown>); } });
  const { thread, port } = await ownIoThread(t, s, log);
  let armed = true;
  const faulty: GatewayPhase = {
    name: 'faulty-test-phase',
    onRequest: () => { if (armed) throw new TypeError('boom in a phase'); return PhaseResult.CONTINUE; },
  };
  thread.pipeline = { names: [...thread.pipeline.names, faulty.name], steps: [...thread.pipeline.steps, faulty.onRequest] };
  await thread.listen();

  const url = `http://127.0.0.1:${port}/echo/1.0.0/x`;
  const r = await request(url);
  t.equal(r.status, 500);
  const f = faultOf(r);
  t.equal(f?.code, 101510);
  t.match(f?.description, /faulty-test-phase/, 'the description names the phase');
  t.equal(be.seen.length, 0, 'nothing reached the backend');
  const logged = lines.find((l) => l['msg'] === 'phase failed');
  t.equal(logged?.['phase'], 'faulty-test-phase', 'the log names the phase');
  t.match(String(logged?.['stack']), /boom in a phase/, 'with the stack');

  const post = await request(url, { method: 'POST', body: 'x'.repeat(50_000) });
  t.equal(faultOf(post)?.code, 101510, 'a call with an unread body gets the fault too');
  armed = false;
  for (let i = 0; i < 3; i++) t.equal((await request(url)).status, 200, `served after the failure (${i})`);
  t.equal(thread.inFlightCount, 0, 'no call left in flight');
});

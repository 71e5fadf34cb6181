// Finished calls reach every listener (kernel/call-events.ts): added once, removed, in order; a listener
// that throws keeps the call from no other listener and surfaces as the thread's uncaught exception.
import t from 'tap';
import type { Call } from '../../../engine/kernel/call.js';
import { hasCallSubscribers, publishCall, subscribeCalls, unsubscribeCalls } from '../../../engine/kernel/call-events.js';

const call = { method: 'GET' } as unknown as Call;

t.test('listeners hear each call in the order they were added; one added twice hears it once', async (t) => {
  const heard: string[] = [];
  const a = (c: Call): void => { heard.push(`a:${c.method}`); };
  const b = (c: Call): void => { heard.push(`b:${c.method}`); };
  t.notOk(hasCallSubscribers(), 'nobody listens at first');
  subscribeCalls(a);
  subscribeCalls(b);
  subscribeCalls(a);
  t.ok(hasCallSubscribers());
  publishCall(call);
  t.same(heard, ['a:GET', 'b:GET']);
  unsubscribeCalls(a);
  publishCall(call);
  t.same(heard, ['a:GET', 'b:GET', 'b:GET'], 'a removed');
  unsubscribeCalls(b);
  unsubscribeCalls(b);
  t.notOk(hasCallSubscribers(), 'nobody listens after both left');
});

t.test('a listener that throws: the others still hear the call, and the error is uncaught on the next tick', async (t) => {
  const heard: string[] = [];
  const bad = (): void => { throw new Error('listener broke'); };
  const good = (): void => { heard.push('good'); };
  subscribeCalls(bad);
  subscribeCalls(good);
  t.teardown(() => { unsubscribeCalls(bad); unsubscribeCalls(good); });
  const uncaught = new Promise<Error>((resolve) => {
    const listenersBefore = process.listeners('uncaughtException');
    process.removeAllListeners('uncaughtException');
    process.once('uncaughtException', (err) => {
      for (const l of listenersBefore) process.on('uncaughtException', l);
      resolve(err);
    });
  });
  t.doesNotThrow(() => { publishCall(call); }, 'publishing does not throw at the gateway');
  t.same(heard, ['good']);
  t.equal((await uncaught).message, 'listener broke');
});

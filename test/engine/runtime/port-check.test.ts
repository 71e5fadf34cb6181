import t from 'tap';
import net from 'node:net';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { assertPortFree } from '../../../engine/runtime/io-threads.js';
import { freePort } from '../../helpers/ports.js';

/**
 * Connects to the port over and over from other threads (eight connections at a time) until told to stop;
 * resolves with the connections that were accepted. Other threads: a connection attempted from this one
 * could never fall between a check's steps, which run in one turn of its event loop.
 */
function knockFromThreads(port: number): { stop(): Promise<number> } {
  const script = `
    const net = require('node:net');
    const { workerData, parentPort } = require('node:worker_threads');
    let accepted = 0, stopping = false, running = 8;
    parentPort.once('message', () => { stopping = true; });
    const knock = () => {
      if (stopping) { if (--running === 0) parentPort.postMessage(accepted); return; }
      const s = net.connect(workerData.port, '127.0.0.1');
      s.once('connect', () => { accepted++; s.destroy(); knock(); });
      s.once('error', () => { s.destroy(); knock(); });
    };
    for (let i = 0; i < 8; i++) knock();`;
  const workers = [0, 1].map(() => new Worker(script, { eval: true, workerData: { port } }));
  return {
    async stop() {
      const counts = await Promise.all(workers.map((w) => new Promise<number>((resolve) => { w.once('message', resolve); w.postMessage('stop'); })));
      await Promise.all(workers.map((w) => w.terminate()));
      return counts.reduce((a, b) => a + b, 0);
    },
  };
}

t.test('checking that the port is free never accepts a connection', async (t) => {
  // A start used to check its port by listening on it for a moment: a client (a load balancer's health
  // check, a test waiting for the port) could connect in that moment, take the port for open, and have its
  // connection reset when the check closed, before the gateway listened for real.
  const port = await freePort();
  const knocking = knockFromThreads(port);
  await new Promise((r) => setTimeout(r, 100));
  for (let i = 0; i < 2000; i++) await assertPortFree('127.0.0.1', port);
  t.equal(await knocking.stop(), 0, 'no connection was accepted while the port was checked 2 000 times');
});

t.test('a port another server listens on stops the start with a clear message', async (t) => {
  const port = await freePort();
  const plain = net.createServer();
  await new Promise<void>((r) => plain.listen(port, '127.0.0.1', r));
  t.teardown(() => plain.close());
  await t.rejects(assertPortFree('127.0.0.1', port), /port \d+ on 127\.0\.0\.1 is already in use/, 'a plain listener');
  await t.rejects(assertPortFree('0.0.0.0', port), /is already in use/, 'seen from the wildcard address too');
});

t.test('a port another SO_REUSEPORT server listens on (another Sluice) is in use too', async (t) => {
  const { createReuseportFd } = createRequire(import.meta.url)('node-unix-socket') as { createReuseportFd(port: number, host: string): number };
  const port = await freePort();
  const shared = net.createServer();
  await new Promise<void>((r) => shared.listen({ fd: createReuseportFd(port, '127.0.0.1') }, r));
  t.teardown(() => shared.close());
  await t.rejects(assertPortFree('127.0.0.1', port), /is already in use/);
});

t.test('a free port passes', async (t) => {
  const port = await freePort();
  await assertPortFree('127.0.0.1', port);
  await assertPortFree('0.0.0.0', port);
  t.pass('free');
});

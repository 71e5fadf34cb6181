// Worker for counter-table-threads.test.ts: hammers one shared counter table from another thread.
import { parentPort, workerData } from 'node:worker_threads';

if (!parentPort || !workerData) process.exit(0); // run by counter-table-threads.test.ts only
const { modUrl, hashUrl, shared, keys, calls, limit, windowMs } = workerData;
const { CounterTable } = await import(modUrl);
const { hashOf } = await import(hashUrl);
const table = new CounterTable(shared);
const fps = keys.map((k) => hashOf(k));
const admitted = new Array(keys.length).fill(0);
const claimed = [];
for (let i = 0; i < calls; i++) {
  const k = i % keys.length;
  const slot = table.slotOf(fps[k]);
  if (slot < 0) continue;
  if (table.claimed) claimed.push(slot);
  if (table.acquire(slot, Math.floor(Date.now() / windowMs), limit, 1)) admitted[k]++;
}
parentPort.postMessage({ admitted, claimed });

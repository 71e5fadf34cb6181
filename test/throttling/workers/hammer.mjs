// Worker for counter-table-threads.test.ts: hammers one shared counter table from another thread with one
// of its operations (`op`, acquire by default), round-robin over `keys`.
import { parentPort, workerData } from 'node:worker_threads';

if (!parentPort || !workerData) process.exit(0); // run by counter-table-threads.test.ts only
const { modUrl, hashUrl, shared, keys, calls, limit, windowMs, op = 'acquire', win, amount = 1, start } = workerData;
const { CounterTable } = await import(modUrl);
const { hashOf } = await import(hashUrl);
const table = new CounterTable(shared);
const fps = keys.map((k) => hashOf(k));
/** Per key: the calls the operation admitted (acquire, acquireUnder) or made (add, release). */
const admitted = new Array(keys.length).fill(0);
const claimed = [];
/** note: 1 at each call whose note was the first of its key in the window. */
const won = new Uint8Array(op === 'note' ? calls : 0);
if (start !== undefined) {
  // Start with the other thread, so that the two threads' compare-and-swaps overlap.
  const gate = new Int32Array(start);
  Atomics.add(gate, 0, 1);
  Atomics.notify(gate, 0);
  Atomics.wait(gate, 1, 0);
}
for (let i = 0; i < calls; i++) {
  const k = i % keys.length;
  const slot = table.slotOf(fps[k]);
  if (slot < 0) continue;
  if (table.claimed) claimed.push(slot);
  const w = win ?? Math.floor(Date.now() / windowMs);
  switch (op) {
    case 'acquire': if (table.acquire(slot, w, limit, amount)) admitted[k]++; break;
    case 'acquireUnder': if (table.acquireUnder(slot, w, limit, amount)) admitted[k]++; break;
    case 'add': table.add(slot, w, amount); admitted[k]++; break;
    case 'release': table.release(slot, w, amount); admitted[k]++; break;
    case 'note': if (table.note(slot, w, 1)) won[i] = 1; break;
    default: throw new Error(`unknown op ${op}`);
  }
}
parentPort.postMessage({ admitted, claimed, won });

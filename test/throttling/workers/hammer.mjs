// Worker for counter-table-threads.test.ts: hammers shared counter tables from another thread, one job
// after the other; each job one operation (`op`, acquire by default), round-robin over its keys.
import { parentPort, workerData } from 'node:worker_threads';

if (!parentPort || !workerData) process.exit(0); // run by counter-table-threads.test.ts only
const { modUrl, hashUrl, jobs, gate } = workerData;
const { CounterTable } = await import(modUrl);
const { hashOf } = await import(hashUrl);

/** With a gate, job j starts when both threads of the race have reached it, so that their compare-and-swaps overlap. */
function together(j) {
  if (gate === undefined) return;
  const g = new Int32Array(gate);
  if (Atomics.add(g, j, 1) === 1) Atomics.notify(g, j);
  else while (Atomics.load(g, j) < 2) Atomics.wait(g, j, 1);
}

/**
 * op 'rolling': windows 1..`windows` one after the other, `perWindow` acquires of the first key in each,
 * never more than one window ahead of the other thread (`progress`: each thread's window, `me`: its index),
 * so that the two threads' counts race across every roll-over.
 */
function rolling({ shared, keys, windows, perWindow, limit, progress, me }) {
  const table = new CounterTable(shared);
  const slot = table.slotOf(hashOf(keys[0]));
  const p = new Int32Array(progress);
  let admitted = 0;
  for (let w = 1; w <= windows; w++) {
    Atomics.store(p, me, w);
    Atomics.notify(p, me);
    for (let o; (o = Atomics.load(p, 1 - me)) < w - 1;) Atomics.wait(p, 1 - me, o, 10);
    for (let i = 0; i < perWindow; i++) if (table.acquire(slot, w, limit, 1)) admitted++;
  }
  Atomics.store(p, me, windows + 1);
  Atomics.notify(p, me);
  return { admitted: [admitted], claimed: [], won: new Uint8Array(0) };
}

function run(job) {
  return job.op === 'rolling' ? rolling(job) : each(job);
}

function each({ shared, keys, calls, limit, windowMs = 3_600_000, op = 'acquire', win, amount = 1 }) {
  const table = new CounterTable(shared);
  const fps = keys.map((k) => hashOf(k));
  /** Per key: the calls the operation admitted (acquire, acquireUnder) or made (add, release). */
  const admitted = new Array(keys.length).fill(0);
  const claimed = [];
  /** note: 1 at each call whose note was the first of its key in the window. */
  const won = new Uint8Array(op === 'note' ? calls : 0);
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
  return { admitted, claimed, won };
}

const results = [];
for (let j = 0; j < jobs.length; j++) {
  together(j);
  results.push(run(jobs[j]));
}
parentPort.postMessage(results);

import { CounterTable, KIND_REQUESTS, NOTE_THROTTLED, createSharedCounters } from './counter-table.js';

/**
 * Takes each path of the table's compare-and-swap once, on a small table of its own, before the io thread
 * counts its first call. A path first taken after V8 has optimized the throttle phase deoptimizes it (a
 * property load with no type feedback): the roll-over to a new window, which with windows of a minute came
 * after the optimization, sent the phase back to baseline code for a while (--trace-deopt, 2026-11-28).
 */
export function warmUpCounterPaths(): void {
  const t = new CounterTable(createSharedCounters(1024));
  const slot = t.slotOf({ hi: 0x1234567, lo: 0x7654321, slot: -1 });
  // Many rounds: V8 gives a function its feedback vector only after it has run for a while, and what runs
  // before that leaves no feedback.
  for (let w = 1; w <= ROUNDS; w++) {
    t.acquire(slot, w, 10, 1); // a new window (the whole word), then the window it holds (the value's half)
    t.acquire(slot, w, 10, 1);
    t.acquire(slot, w - 1, 10, 1); // a late call, counted in window w
    t.acquire(slot, w, 1, 1); // over the limit
    t.acquireUnder(slot, w, 10, 3);
    t.add(slot, w, 1);
    t.release(slot, w, 1);
    t.note(slot, w, NOTE_THROTTLED);
    t.countIn(slot, w);
    t.plainCount(slot, w);
    t.acquire(slot, w, 100, 8); // a lease (level-counter.ts)
    t.allowance(slot, w, 10, KIND_REQUESTS);
    t.globalIn(slot, w);
  }
}

const ROUNDS = 50;

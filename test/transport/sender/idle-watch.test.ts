import t from 'tap';
import { IdleWatch, sweepPeriodFor, type IdleWatched } from '../../../transport/sender/idle-watch.js';

// The idle watch on its own: its sweep period follows the smallest limit it watches, a watched thing whose
// limit passed is told on the next sweep, and the timer stops when nothing is left to watch.

t.test('the sweep period is an eighth of the limit, within 25 ms and 1 s', async (t) => {
  t.equal(sweepPeriodFor(600), 75);
  t.equal(sweepPeriodFor(100), 25);
  t.equal(sweepPeriodFor(180_000), 1000);
});

/** A watched thing that notes the sweeps that found it idle past its limit, and leaves the watch then. */
function idleSince(watch: IdleWatch, limitMs: number, since: number): IdleWatched & { timedOutAt: number[] } {
  const c = {
    idleLimitMs: limitMs,
    timedOutAt: [] as number[],
    checkIdle(now: number): void {
      if (now - since <= limitMs) return;
      c.timedOutAt.push(now);
      watch.unwatch(c);
    },
  };
  return c;
}

t.test('a watched connection idle past its limit is timed out by the next sweep, and the timer stops with the last', async (t) => {
  const watch = new IdleWatch();
  const start = Date.now();
  const slow = idleSince(watch, 2000, start);
  const quick = idleSince(watch, 200, start);
  watch.watch(slow);
  t.equal(watch.sweepPeriodMs, 250);
  watch.watch(quick);
  t.equal(watch.sweepPeriodMs, 25, 'the smaller limit makes the sweep more frequent');
  await new Promise((r) => setTimeout(r, 400));
  t.equal(quick.timedOutAt.length, 1, 'the 200 ms one timed out once');
  t.ok(quick.timedOutAt[0]! - start > 200 && quick.timedOutAt[0]! - start < 300, `within a sweep of its limit (${quick.timedOutAt[0]! - start} ms)`);
  t.same(slow.timedOutAt, [], 'the 2 s one not yet');
  t.equal(watch.size, 1);
  watch.unwatch(slow);
  t.equal(watch.size, 0);
  t.equal(watch.sweepPeriodMs, 0, 'no timer runs with nothing watched');
});

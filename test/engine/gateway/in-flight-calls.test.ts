import t from 'tap';
import { InFlightCalls } from '../../../engine/gateway/in-flight-calls.js';

const call = (id: number) => ({ id, inFlightIndex: -1 });

t.test('calls in flight: added once, removed from anywhere, the list stays dense', async (t) => {
  const f = new InFlightCalls<ReturnType<typeof call>>();
  const calls = Array.from({ length: 6 }, (_, i) => call(i));
  for (const c of calls) f.add(c);
  f.add(calls[2]!);
  t.equal(f.size, 6, 'a second add of the same call does not list it twice');
  t.ok(f.delete(calls[1]!), 'a middle call leaves');
  t.notOk(f.delete(calls[1]!), 'twice: not listed any more');
  t.notOk(f.delete(call(99)), 'a call never added');
  t.ok(f.delete(calls[5]!), 'the last call leaves');
  t.ok(f.delete(calls[0]!), 'the first call leaves');
  t.same(f.toArray().map((c) => c.id).sort(), [2, 3, 4], 'the others are still listed');
  for (const c of f.toArray()) t.equal(f.toArray()[c.inFlightIndex], c, `call ${c.id} knows its place`);
  t.equal(calls[1]!.inFlightIndex, -1, 'a call that left is marked so');
  f.add(calls[1]!);
  t.equal(f.size, 4, 'and may be listed again');
});

t.test('walking a copy while every call leaves (the global timeout sweep, graceful stop)', async (t) => {
  const f = new InFlightCalls<ReturnType<typeof call>>();
  for (let i = 0; i < 100; i++) f.add(call(i));
  let seen = 0;
  let removed = 0;
  for (const c of f.toArray()) { seen++; if (f.delete(c)) removed++; }
  t.equal(seen, 100, 'each call visited once');
  t.equal(removed, 100, 'and removed');
  t.equal(f.size, 0);
  t.same(f.toArray(), []);
});

t.test('churn: a long run of adds and deletes keeps exactly the calls still open', async (t) => {
  const f = new InFlightCalls<ReturnType<typeof call>>();
  const open = new Map<number, ReturnType<typeof call>>();
  let next = 0;
  let seed = 7;
  const rand = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed; };
  let refused = 0;
  for (let step = 0; step < 20_000; step++) {
    if (open.size < 50 && rand() % 3 !== 0) { const c = call(next++); f.add(c); open.set(c.id, c); }
    else if (open.size > 0) { const ids = [...open.keys()]; const id = ids[rand() % ids.length]!; if (!f.delete(open.get(id)!)) refused++; open.delete(id); }
  }
  t.equal(refused, 0, 'every open call could be removed');
  t.equal(f.size, open.size);
  t.same(f.toArray().map((c) => c.id).sort((a, b) => a - b), [...open.keys()].sort((a, b) => a - b));
});

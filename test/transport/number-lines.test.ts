/**
 * transport/number-lines.ts keeps numeric head fields as bytes and writes a changed value again in place:
 * whatever came before, the bytes it returns must be exactly the lines the numbers' text would make.
 */
import t from 'tap';
import { NumberLines, numberField, type NumberField } from '../../transport/number-lines.js';

const LIMIT = numberField('X-RateLimit-Limit');
const REMAINING = numberField('X-RateLimit-Remaining');
const RESET = numberField('X-RateLimit-Reset');

const asText = (numbers: (NumberField | number)[]): string => {
  let s = '';
  for (let i = 0; i < numbers.length; i += 2) s += `${(numbers[i] as NumberField).name}: ${numbers[i + 1]}\r\n`;
  return s;
};

/** Asks one NumberLines for each list in turn; each answer must be that list's own text. */
function inTurn(t: Tap.Test, lists: (NumberField | number)[][]): void {
  const lines = new NumberLines();
  for (const numbers of lists) t.equal(lines.of(numbers).toString('latin1'), asText(numbers), asText(numbers).replace(/\r\n/g, ' | '));
}

t.test('a count is its digits, whether the lines are made anew or a value is written again in place', async (t) => {
  const counts = [0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 59_999, 2 ** 31 - 2, 2 ** 31 - 1];
  // Down and up through every width, so each value is written once in place and once by a new making.
  const lists = [...counts, ...[...counts].reverse()].map((v) => [LIMIT, 6, REMAINING, v, RESET, 27]);
  inTurn(t, lists);
});

t.test('a value that keeps its width is written in place over one with more digits or the same', async (t) => {
  inTurn(t, [[LIMIT, 1000, REMAINING, 999], [LIMIT, 1000, REMAINING, 998], [LIMIT, 1000, REMAINING, 100], [LIMIT, 1000, REMAINING, 99],
    [LIMIT, 9000, REMAINING, 10], [LIMIT, 9000, REMAINING, 10], [LIMIT, 90, REMAINING, 10]]);
});

t.test('a count that moves within its width, by one or by any step, up or down, is written digit for digit', async (t) => {
  // Seeded, so a failure repeats: a walk through each width from 1 to 10 digits, with steps of 1 (the
  // usual remaining count), across the digits' carries (99 -> 100 is another width) and of any size.
  let seed = 20261128;
  const next = (): number => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed; };
  const lists: (NumberField | number)[][] = [];
  for (let width = 1; width <= 10; width++) {
    const low = width === 1 ? 0 : 10 ** (width - 1);
    const high = Math.min(2 ** 31 - 1, 10 ** width - 1);
    let v = high;
    for (let i = 0; i < 60; i++) {
      const step = i % 3 === 0 ? 1 : i % 3 === 1 ? next() % 1000 : next() % (high - low + 1);
      v = i % 2 === 0 ? v - step : v + step;
      v = v < low ? low + (low - v) % (high - low + 1) : v > high ? high - (v - high) % (high - low + 1) : v;
      lists.push([LIMIT, high, REMAINING, v, RESET, 60 - (i >> 3)]);
    }
  }
  inTurn(t, lists);
});

t.test('any other number is written as JavaScript writes it, before and after counts', async (t) => {
  const odd = [-1, -0, 0.5, 1.25, 2 ** 31, 2 ** 32 + 7, 2 ** 53, 1e21, Number.MAX_VALUE, Infinity, NaN, NaN];
  inTurn(t, odd.flatMap((v) => [[REMAINING, v, RESET, 3], [REMAINING, 7, RESET, 3]]));
});

t.test('other fields, more or fewer of them, or none, make the lines anew', async (t) => {
  inTurn(t, [[LIMIT, 5, REMAINING, 4], [REMAINING, 5, LIMIT, 4], [REMAINING, 5], [REMAINING, 5, LIMIT, 4, RESET, 1], [], [LIMIT, 5]]);
});

t.test('a field name that is not a token is refused where it is made', async (t) => {
  for (const bad of ['X Limit', 'X-Limit:', 'X-Limit\r\nSet-Cookie', '']) t.throws(() => numberField(bad), /not a header name/, JSON.stringify(bad));
});

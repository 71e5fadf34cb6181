import { fieldName, type FieldName } from './field-values.js';

/**
 * Head lines of numeric fields (X-RateLimit-Limit, -Remaining, -Reset), kept as bytes that a head's write
 * copies after the rest of the head. Remaining changes on every call, so text made of it is new each time:
 * as a string, a head with it was a rope of the kept head and the lines, which the write flattened into a
 * new string before copying it (about 1 700 instructions a call by callgrind; docs/performance.md, stop
 * 36). Here the lines are one buffer, kept for the fields and values it was last written for: a value that
 * changes with the same number of digits is written again in place, digit by digit, and the buffer is
 * copied with one typed-array set. The names are checked FieldNames and the values numbers, so a line is
 * safe by construction.
 */
export class NumberField {
  /** `name: ` as bytes, copied before the value when the lines are made. */
  readonly start: Buffer;
  constructor(readonly name: FieldName) {
    this.start = Buffer.from(`${name}: `, 'latin1');
  }
}

/** A numeric field under a checked name (made once, usually a phase's constant); throws on a bad name. */
export function numberField(name: string): NumberField {
  return new NumberField(fieldName(name));
}

/** Numeric fields and their values, flat [field, value, ...]. */
export type ResponseNumbers = readonly (NumberField | number)[];

const SMALL_MAX = 0x7fffffff;

/**
 * A count the digit loop writes (a number of calls, a limit, seconds): a whole number that fits 31 bits,
 * so the loop's division stays in integers. Anything else is written as JavaScript's text for it.
 */
function isSmall(v: number): boolean {
  return v >= 0 && v <= SMALL_MAX && (v | 0) === v;
}

function digitCount(v: number): number {
  let n = 1;
  while (v >= 10) { v = (v / 10) | 0; n++; }
  return n;
}

/** Writes the digits of a small `v` ending just before `end`. */
function writeDigits(out: Buffer, end: number, v: number): void {
  do {
    const q = (v / 10) | 0;
    out[--end] = 48 + v - q * 10;
    v = q;
  } while (v > 0);
}

/**
 * Writes the digits of a small `v` over those of `was`, which has as many, ending just before `end`: only
 * the low digits that differ. A count that went down by one changes one digit in nine of ten calls.
 */
function rewriteDigits(out: Buffer, end: number, v: number, was: number): void {
  do {
    const q = (v / 10) | 0;
    out[--end] = 48 + v - q * 10;
    v = q;
    was = (was / 10) | 0;
  } while (v !== was);
}

/** The smallest number with `width` digits (1 digit: 0). */
function lowest(width: number): number {
  return width <= 1 ? 0 : 10 ** (width - 1);
}

const NONE = Buffer.alloc(0);

/**
 * `name: value\r\n` for each field, kept for the last fields and values asked for (one per thread: the bytes
 * it returns are good until its next call, so they are copied at once).
 */
export class NumberLines {
  private fields: NumberField[] = [];
  private values: number[] = [];
  /** Where each value's digits (or text) end in `kept`. */
  private ends: number[] = [];
  /** Per value, the range of numbers with as many digits as it has ([1, 0] when it is not a small count). */
  private lows: number[] = [];
  private highs: number[] = [];
  private kept = NONE;

  /** The lines of `numbers` as bytes; they change at the next call, so copy them before anything else runs. */
  of(numbers: ResponseNumbers): Buffer {
    const n = numbers.length >> 1;
    const fields = this.fields;
    if (n !== fields.length) return this.make(numbers);
    const values = this.values;
    for (let i = 0; i < n; i++) {
      if (numbers[2 * i] !== fields[i]) return this.make(numbers);
      const v = numbers[2 * i + 1] as number;
      const was = values[i]!;
      if (v === was) continue;
      if (!(v >= this.lows[i]! && v <= this.highs[i]!) || (v | 0) !== v) return this.make(numbers);
      rewriteDigits(this.kept, this.ends[i]!, v, was);
      values[i] = v;
    }
    return this.kept;
  }

  /** Makes the lines anew: the first call, other fields, or a value whose digits do not fit its place. */
  private make(numbers: ResponseNumbers): Buffer {
    const n = numbers.length >> 1;
    const texts: (string | null)[] = [];
    let length = 0;
    for (let i = 0; i < n; i++) {
      const v = numbers[2 * i + 1] as number;
      const text = isSmall(v) ? null : `${v}`;
      texts.push(text);
      length += (numbers[2 * i] as NumberField).start.length + (text === null ? digitCount(v) : text.length) + 2;
    }
    // Its own memory, not a slice of Node's pool: the digits are written again in place.
    const out = Buffer.alloc(length);
    const fields: NumberField[] = [];
    const values: number[] = [];
    const ends: number[] = [];
    const lows: number[] = [];
    const highs: number[] = [];
    let at = 0;
    for (let i = 0; i < n; i++) {
      const field = numbers[2 * i] as NumberField;
      const v = numbers[2 * i + 1] as number;
      out.set(field.start, at);
      at += field.start.length;
      const text = texts[i]!;
      if (text === null) {
        const width = digitCount(v);
        at += width;
        writeDigits(out, at, v);
        lows.push(lowest(width));
        highs.push(Math.min(SMALL_MAX, 10 ** width - 1));
      } else {
        at += out.write(text, at, 'latin1');
        lows.push(1);
        highs.push(0);
      }
      ends.push(at);
      fields.push(field);
      values.push(v);
      out[at++] = 13;
      out[at++] = 10;
    }
    this.fields = fields;
    this.values = values;
    this.ends = ends;
    this.lows = lows;
    this.highs = highs;
    this.kept = out;
    return out;
  }
}

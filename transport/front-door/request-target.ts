/**
 * Request-target normalisation (issue 17; the rules and their keys: docs/security.md, "The request target").
 *
 * The gateway judges a call by its path (routing, resource templates, scopes, throttling keys, the access
 * log) and the backend runs whatever path it is sent. Both must be the same path, so the path is normalised
 * once, before routing, into the one form that every RFC 3986 reader agrees on (§6.2.2: unreserved
 * characters decoded, escapes in upper case; §5.2.4: dot-segments resolved, encoded ones included), and
 * what has no such form (an encoded `/`, a backslash, a `;` parameter, an encoded control, a broken or
 * overlong encoding, a `..` above the root) is refused rather than guessed at: backends disagree on those,
 * which is what every path-confusion advisory in docs/security.md, "The request target" exploited.
 *
 * Pure and synchronous, no code imported (only the rules' type, from conf): the front door calls it on the io
 * thread for every request. A path with none of `%` `\` `;` `#`, no control, space or non-ASCII byte, no `.`
 * or `..` segment and no `//` (when merging) is returned as it came, after one scan and with no allocation:
 * that is nearly every call.
 */

import type { TargetRules } from '../../conf/views/front-door.js';

/** Why a path was refused (NONE: it was not). */
export const TargetRefusal = {
  NONE: 0,
  /** A `%` not followed by two hex digits (`%u002e` included), or an escape sequence that is not UTF-8. */
  BAD_ENCODING: 1,
  /** `%2F` or `%5C` with escapedSlash 'reject'. */
  ENCODED_SLASH: 2,
  /** A raw `\` with backslash 'reject'. */
  BACKSLASH: 3,
  /** A raw control or space, or an escape of one (`%00`-`%1F`, `%7F`): never configurable. */
  CONTROL: 4,
  /** A `;` with pathParameters 'reject'. */
  PATH_PARAMETERS: 5,
  /** A `..` with no segment left to remove. */
  ABOVE_ROOT: 6,
  /** A byte >= 0x80 sent raw (RFC 9112 targets are ASCII; UTF-8 is sent percent-encoded). */
  NOT_ASCII: 7,
  /** A `#`: a fragment is never sent in a request target (RFC 9112 §3.2). */
  FRAGMENT: 8,
  /** The path does not start with `/`. */
  BAD_FORM: 9,
} as const;
export type TargetRefusal = (typeof TargetRefusal)[keyof typeof TargetRefusal];

/** The defaults of the [passthru_http] path_* keys: refuse whatever is ambiguous, merge slashes. */
export const DEFAULT_TARGET_RULES: TargetRules = Object.freeze({
  escapedSlash: 'reject', backslash: 'reject', pathParameters: 'reject', mergeSlashes: true,
});

/** The result; the caller keeps one and passes it to every call (nothing is allocated for it). */
export interface NormalizedTarget {
  /** A TargetRefusal. */
  refusal: number;
  /** The normalised path (no query); '' when refused. */
  path: string;
  /**
   * Fewest segments left on the output after a `..` removed one (-1: no `..` segment). The router refuses
   * a path whose minDepth is below its API context's segment count: it climbed out of the API and back.
   */
  minDepth: number;
  /** Why it was refused, for the fault description and the log ('' when not). A constant: no request bytes. */
  detail: string;
}

const SLASH = 0x2f;
const BACKSLASH = 0x5c;
const DOT = 0x2e;
const PERCENT = 0x25;
const SEMICOLON = 0x3b;
const HASH = 0x23;

/** ASCII bytes that send a path to the general path: `%` `\` `;` `#`, controls, space, DEL. */
const SPECIAL = new Uint8Array(128);
for (let c = 0; c <= 0x20; c++) SPECIAL[c] = 1;
SPECIAL[0x7f] = 1;
for (const c of [PERCENT, BACKSLASH, SEMICOLON, HASH]) SPECIAL[c] = 1;

/** RFC 3986 §2.3: ALPHA DIGIT `-` `.` `_` `~`; their escapes are decoded (§6.2.2.2). */
const UNRESERVED = new Uint8Array(128);
for (let c = 0x30; c <= 0x39; c++) UNRESERVED[c] = 1;
for (let c = 0x41; c <= 0x5a; c++) { UNRESERVED[c] = 1; UNRESERVED[c + 0x20] = 1; }
for (const c of [0x2d, DOT, 0x5f, 0x7e]) UNRESERVED[c] = 1;

/** Hex digit values; -1 for anything else (also read for chars >= 128 through `hexValue`). */
const HEX = new Int8Array(128).fill(-1);
for (let c = 0x30; c <= 0x39; c++) HEX[c] = c - 0x30;
for (let c = 0x41; c <= 0x46; c++) { HEX[c] = c - 0x37; HEX[c + 0x20] = c - 0x37; }
const HEX_UPPER = '0123456789ABCDEF';

const DETAIL = {
  badForm: 'the path does not start with /',
  notAscii: 'a byte outside ASCII (send UTF-8 percent-encoded)',
  fragment: "a '#' fragment",
  rawControl: 'a control character or space',
  percent: "a '%' not followed by two hex digits",
  percentU: "a '%u' escape (not RFC 3986)",
  encodedControl: 'an encoded control character (%00-%1F, %7F)',
  strayContinuation: 'a UTF-8 continuation byte with no lead byte',
  invalidUtf8: 'an invalid or incomplete UTF-8 sequence',
  overlong: 'an overlong UTF-8 encoding',
  surrogate: 'an encoded UTF-16 surrogate (U+D800-U+DFFF)',
  tooHigh: 'a code point above U+10FFFF',
  encodedSlash: "an encoded '/' (%2F)",
  encodedBackslash: "an encoded '\\' (%5C)",
  backslash: "a '\\'",
  parameters: "a ';' path parameter",
  aboveRoot: "a '..' above the root",
} as const;

function hexValue(c: number): number {
  return c < 128 ? HEX[c]! : -1;
}

/** Whether raw[from, to) is `.` or `..`. */
function isDotSegment(raw: string, from: number, to: number): boolean {
  const len = to - from;
  return len !== 0 && len <= 2 && raw.charCodeAt(from) === DOT && (len === 1 || raw.charCodeAt(from + 1) === DOT);
}

/**
 * Normalises `raw`, the path of an origin-form target (from its first `/` up to, not including, `?`; one
 * char per byte, as llhttp gives it), into `out`. The query is the caller's: it is data and never touched.
 */
export function normalizePath(raw: string, rules: TargetRules, out: NormalizedTarget): void {
  const n = raw.length;
  if (n !== 0 && raw.charCodeAt(0) === SLASH) {
    const merge = rules.mergeSlashes;
    let segStart = 1;
    let i = 1;
    for (; i < n; i++) {
      const c = raw.charCodeAt(i);
      if (c === SLASH) {
        if (i === segStart ? merge : isDotSegment(raw, segStart, i)) break;
        segStart = i + 1;
      } else if (c >= 0x80 || SPECIAL[c] === 1) {
        break;
      }
    }
    if (i === n && !isDotSegment(raw, segStart, n)) {
      out.refusal = TargetRefusal.NONE;
      out.path = raw;
      out.minDepth = -1;
      out.detail = '';
      return;
    }
  }
  normalizeGeneral(raw, rules, out);
}

function refuse(out: NormalizedTarget, refusal: TargetRefusal, detail: string): void {
  out.refusal = refusal;
  out.path = '';
  out.minDepth = -1;
  out.detail = detail;
}

/**
 * The general path: every rule, every input. Exported for the differential test (the fast path must give
 * what this gives); callers use normalizePath.
 */
export function normalizeGeneral(raw: string, rules: TargetRules, out: NormalizedTarget): void {
  const n = raw.length;
  if (n === 0 || raw.charCodeAt(0) !== SLASH) return refuse(out, TargetRefusal.BAD_FORM, DETAIL.badForm);

  // Byte classes first, in the contract's order, whatever their position.
  let fragment = false;
  let control = false;
  for (let i = 0; i < n; i++) {
    const c = raw.charCodeAt(i);
    if (c >= 0x80) return refuse(out, TargetRefusal.NOT_ASCII, DETAIL.notAscii);
    if (c === HASH) fragment = true;
    else if (c <= 0x20 || c === 0x7f) control = true;
  }
  if (fragment) return refuse(out, TargetRefusal.FRAGMENT, DETAIL.fragment);
  if (control) return refuse(out, TargetRefusal.CONTROL, DETAIL.rawControl);

  const slashOnBackslash = rules.backslash === 'slash';
  const keepEscapedSlash = rules.escapedSlash === 'keep';
  const strip = rules.pathParameters === 'strip';
  const merge = rules.mergeSlashes;

  // The output: complete segments, each with its leading '/'. Then one segment at a time, left to right:
  // the first fault met refuses.
  let o = '';
  let depth = 0;
  let minDepth = -1;
  let endsWithDot = false;
  let i = 1;
  for (;;) {
    let seg = '';
    let run = i; // raw[run, i) is copied to seg as it is
    while (i < n) {
      const c = raw.charCodeAt(i);
      if (c === SLASH) break;
      if (c === BACKSLASH) {
        if (!slashOnBackslash) return refuse(out, TargetRefusal.BACKSLASH, DETAIL.backslash);
        break;
      }
      if (c === SEMICOLON) {
        if (!strip) return refuse(out, TargetRefusal.PATH_PARAMETERS, DETAIL.parameters);
        // Dropped up to the segment's end (Tomcat's reading, done on the raw bytes: `%3B` is data).
        if (run < i) seg += raw.slice(run, i);
        while (i < n) {
          const d = raw.charCodeAt(i);
          if (d === SLASH || d === BACKSLASH) break;
          i++;
        }
        run = i;
        continue;
      }
      if (c !== PERCENT) { i++; continue; }

      const h1 = i + 2 < n ? hexValue(raw.charCodeAt(i + 1)) : -1;
      const h2 = h1 >= 0 ? hexValue(raw.charCodeAt(i + 2)) : -1;
      if (h2 < 0) {
        const u = i + 1 < n ? raw.charCodeAt(i + 1) | 0x20 : 0;
        return refuse(out, TargetRefusal.BAD_ENCODING, u === 0x75 ? DETAIL.percentU : DETAIL.percent);
      }
      const b = (h1 << 4) | h2;
      if (b < 0x20 || b === 0x7f) return refuse(out, TargetRefusal.CONTROL, DETAIL.encodedControl);
      if (b < 0x80) {
        if (UNRESERVED[b] === 1) {
          if (run < i) seg += raw.slice(run, i);
          seg += String.fromCharCode(b);
          i += 3;
          run = i;
          continue;
        }
        if ((b === SLASH || b === BACKSLASH) && !keepEscapedSlash) {
          return refuse(out, TargetRefusal.ENCODED_SLASH, b === SLASH ? DETAIL.encodedSlash : DETAIL.encodedBackslash);
        }
        if (lowerHexIn(raw, i, i + 3)) {
          if (run < i) seg += raw.slice(run, i);
          seg += '%' + HEX_UPPER[h1]! + HEX_UPPER[h2]!;
          i += 3;
          run = i;
        } else {
          i += 3;
        }
        continue;
      }
      // A UTF-8 sequence, every byte escaped (RFC 3629 §4): it stays encoded, in upper case.
      const end = utf8End(raw, i, b);
      if (end < 0) return refuse(out, TargetRefusal.BAD_ENCODING, UTF8_FAULTS[-end]!);
      if (lowerHexIn(raw, i, end)) {
        if (run < i) seg += raw.slice(run, i);
        seg += upperEscapes(raw, i, end);
        run = end;
      }
      i = end;
    }
    if (run < i) seg += raw.slice(run, i);

    const last = i >= n;
    endsWithDot = false;
    if (seg.length <= 2 && seg.length !== 0 && seg.charCodeAt(0) === DOT && (seg.length === 1 || seg.charCodeAt(1) === DOT)) {
      endsWithDot = true;
      if (seg.length === 2) {
        if (depth === 0) return refuse(out, TargetRefusal.ABOVE_ROOT, DETAIL.aboveRoot);
        o = o.slice(0, o.lastIndexOf('/'));
        depth--;
        if (minDepth < 0 || depth < minDepth) minDepth = depth;
      }
    } else if (seg !== '' || last || !merge) {
      o += '/' + seg;
      depth++;
    }
    if (last) break;
    i++; // past the '/' (or the '\' read as one)
  }
  if (endsWithDot || o === '') o += '/';
  out.refusal = TargetRefusal.NONE;
  out.path = o === raw ? raw : o;
  out.minDepth = minDepth;
  out.detail = '';
}

/** Whether raw[from, to) has a lower-case hex letter (escapes there need rewriting in upper case). */
function lowerHexIn(raw: string, from: number, to: number): boolean {
  for (let j = from; j < to; j++) {
    const c = raw.charCodeAt(j);
    if (c >= 0x61 && c <= 0x66) return true;
  }
  return false;
}

function upperEscapes(raw: string, from: number, to: number): string {
  let s = '';
  for (let j = from; j < to; j += 3) s += '%' + HEX_UPPER[hexValue(raw.charCodeAt(j + 1))]! + HEX_UPPER[hexValue(raw.charCodeAt(j + 2))]!;
  return s;
}

const Utf8Fault = { INVALID: -1, OVERLONG: -2, SURROGATE: -3, TOO_HIGH: -4, STRAY: -5 } as const;
/** By -Utf8Fault. */
const UTF8_FAULTS: readonly string[] = ['', DETAIL.invalidUtf8, DETAIL.overlong, DETAIL.surrogate, DETAIL.tooHigh, DETAIL.strayContinuation];

/**
 * The end (exclusive) in raw of the escaped UTF-8 sequence whose lead byte `lead` is escaped at `at`, or a
 * Utf8Fault: a stray continuation byte, C0/C1 and F5-FF, a missing or wrong continuation, and the
 * second-byte ranges of RFC 3629 §4 that exclude overlong forms, surrogates and code points above U+10FFFF.
 */
function utf8End(raw: string, at: number, lead: number): number {
  if (lead < 0xc0) return Utf8Fault.STRAY;
  if (lead < 0xc2) return Utf8Fault.OVERLONG;
  if (lead >= 0xf5) return Utf8Fault.TOO_HIGH;
  const need = lead < 0xe0 ? 1 : lead < 0xf0 ? 2 : 3;
  // The second byte's range (RFC 3629 §4) and what a byte below or above it means.
  let lo = 0x80;
  let hi = 0xbf;
  let below: number = Utf8Fault.INVALID;
  let above: number = Utf8Fault.INVALID;
  if (lead === 0xe0) { lo = 0xa0; below = Utf8Fault.OVERLONG; }
  else if (lead === 0xed) { hi = 0x9f; above = Utf8Fault.SURROGATE; }
  else if (lead === 0xf0) { lo = 0x90; below = Utf8Fault.OVERLONG; }
  else if (lead === 0xf4) { hi = 0x8f; above = Utf8Fault.TOO_HIGH; }
  const n = raw.length;
  let j = at + 3;
  for (let k = 0; k < need; k++, j += 3) {
    if (j + 2 >= n || raw.charCodeAt(j) !== PERCENT) return Utf8Fault.INVALID;
    const h1 = hexValue(raw.charCodeAt(j + 1));
    const h2 = h1 >= 0 ? hexValue(raw.charCodeAt(j + 2)) : -1;
    const b = h2 < 0 ? -1 : (h1 << 4) | h2;
    if (b < 0x80 || b > 0xbf) return Utf8Fault.INVALID;
    if (k === 0 && b < lo) return below;
    if (k === 0 && b > hi) return above;
  }
  return j;
}

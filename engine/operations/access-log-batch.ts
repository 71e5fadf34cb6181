import { NumCol, StrCol, columnWidths } from '../gateway/telemetry/call-columns.js';
import type { EncodedCalls } from '../gateway/telemetry/types.js';
import { clfTime, millis3, quoted, requestField, token } from './access-log.js';
import { LineBytes, NUMBER_ROOM, encoded } from './line-bytes.js';

const SPACE = 0x20, DASH = 0x2d, NEWLINE = 0x0a, DOT = 0x2e;
/** The numbers of a line (status, bytes, duration, error code) and the separators between them. */
const LINE_NUMBERS_ROOM = 4 * NUMBER_ROOM + 8;

/**
 * The combined lines of a batch of finished calls, as the bytes the file takes, read straight from the
 * columns the io thread sent (call-columns.ts) rather than from one CallRecord per call.
 *
 * A line is four runs of text between its numbers, and each run is escaped and encoded once per change of
 * its columns, not once per call: a column's string comes once per run of equal values, and under load the
 * client address, user agent, API and application of consecutive calls are mostly the same. Callgrind put
 * the main thread's share of a proxied call at 8 000 instructions with a record per call; perf then found
 * half of what was left in flattening and encoding the batch's text for the file (docs/performance.md),
 * which writing bytes here avoids.
 *
 * The line is the one `gatewayLine` writes for the same call (combinedLine, access-log.ts); the batch test
 * holds the two to the same bytes.
 *
 * `out`: a writer used batch after batch (the telemetry hub's), so that a batch makes no buffer of its own;
 * the bytes returned are a view of it, good until the next batch.
 */
export function gatewayLines(e: EncodedCalls, out: LineBytes = new LineBytes(e.count * 160)): Buffer {
  const { numbers: nu, refs, strings } = e;
  const { numbers: NUM_COLS, strings: STR_COLS } = columnWidths;
  const tokenOf = (ref: number): string => (ref < 0 ? '-' : token(strings[ref]!));
  const quotedOf = (ref: number): string => (ref < 0 ? '"-"' : quoted(strings[ref]!));
  const text = (ref: number): string => (ref < 0 ? '' : strings[ref]!);

  // Each run and the refs (or time field) it was made from; -2 is no run yet.
  let ip = -2, user = -2, clf = '', method = -2, path = -2, query = -2;
  let head: Uint8Array = new Uint8Array(0); //  `ip - user [time] "request" `
  let referer = -2, agent = -2;
  let middle: Uint8Array = head; //              `"referer" "agent" `
  let apiName = -2, apiVersion = -2, application = -2;
  let tail: Uint8Array = head; //                ` api application `

  out.reset();
  for (let i = 0; i < e.count; i++) {
    const nb = i * NUM_COLS;
    const sb = i * STR_COLS;
    // The user and the application are the caller's: none without an application (as in readCalls).
    const app = refs[sb + StrCol.APPLICATION]!;
    const ipRef = refs[sb + StrCol.CLIENT_IP]!, userRef = app >= 0 ? refs[sb + StrCol.USER]! : -1;
    const m = refs[sb + StrCol.METHOD]!, p = refs[sb + StrCol.PATH]!, q = refs[sb + StrCol.QUERY]!;
    const time = clfTime(nu[nb + NumCol.STARTED_AT]!);
    if (ipRef !== ip || userRef !== user || time !== clf || m !== method || p !== path || q !== query) {
      ip = ipRef; user = userRef; clf = time; method = m; path = p; query = q;
      head = encoded(`${tokenOf(ipRef)} - ${tokenOf(userRef)} ${time} ${requestField(text(m), text(p), text(q))} `);
    }
    const r = refs[sb + StrCol.REFERER]!, a = refs[sb + StrCol.USER_AGENT]!;
    if (r !== referer || a !== agent) {
      referer = r; agent = a;
      middle = encoded(`${quotedOf(r)} ${quotedOf(a)} `);
    }
    const n = refs[sb + StrCol.API_NAME]!, v = refs[sb + StrCol.API_VERSION]!;
    if (n !== apiName || v !== apiVersion || app !== application) {
      apiName = n; apiVersion = v; application = app;
      tail = encoded(` ${n < 0 ? '-' : token(`${text(n)}:${text(v)}`)} ${tokenOf(app)} `);
    }
    const bytes = nu[nb + NumCol.BYTES]!;
    const errorCode = nu[nb + NumCol.ERROR_CODE]!;
    out.reserve(head.length + middle.length + tail.length + LINE_NUMBERS_ROOM);
    out.bytes(head);
    out.int(nu[nb + NumCol.STATUS]!);
    out.byte(SPACE);
    if (bytes > 0) out.int(bytes); else out.byte(DASH);
    out.byte(SPACE);
    out.bytes(middle);
    duration(out, nu[nb + NumCol.DURATION_MS]!);
    out.bytes(tail);
    if (errorCode !== 0) out.int(errorCode); else out.byte(DASH);
    out.byte(NEWLINE);
  }
  return out.done();
}

/** Milliseconds with three decimals: the digits millis3 (access-log.ts) gives, without building its string. */
function duration(out: LineBytes, ms: number): void {
  if (!(ms >= 0 && ms < 1e9)) { out.bytes(encoded(millis3(ms))); return; }
  const us = Math.round(ms * 1000);
  const whole = Math.floor(us / 1000);
  out.int(whole);
  out.byte(DOT);
  out.three(us - whole * 1000);
}

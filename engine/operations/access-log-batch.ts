import { NumCol, StrCol, columnWidths } from '../gateway/telemetry/call-columns.js';
import type { EncodedCalls } from '../gateway/telemetry/types.js';
import { combinedLine, quoted, requestField, token } from './access-log.js';

/**
 * The combined lines of a batch of finished calls, read straight from the columns the io thread sent
 * (call-columns.ts) rather than from one CallRecord per call. A column's string comes once per run of equal
 * values, so its escaped form is worked out once per string of the batch, not once per call: under load the
 * client address, user agent, API and application of consecutive calls are mostly the same. Callgrind put
 * the main thread's share of a proxied call at 8 000 instructions with a record per call (docs/performance.md).
 *
 * The line is the one `gatewayLine` writes for the same call (combinedLine orders the fields for both).
 */
export function gatewayLines(e: EncodedCalls): string {
  const { numbers: nu, refs, strings } = e;
  const { numbers: NUM_COLS, strings: STR_COLS } = columnWidths;
  const tokens: (string | undefined)[] = new Array<string | undefined>(strings.length);
  const quotes: (string | undefined)[] = new Array<string | undefined>(strings.length);
  const tokenOf = (ref: number): string => (ref < 0 ? '-' : (tokens[ref] ??= token(strings[ref]!)));
  const quotedOf = (ref: number): string => (ref < 0 ? '"-"' : (quotes[ref] ??= quoted(strings[ref]!)));
  const text = (ref: number): string => (ref < 0 ? '' : strings[ref]!);

  // The request field and the API's name:version depend on two or three columns: kept for the last refs.
  let method = -2, path = -2, query = -2, request = '';
  let apiName = -2, apiVersion = -2, api = '';
  let out = '';
  for (let i = 0; i < e.count; i++) {
    const nb = i * NUM_COLS;
    const sb = i * STR_COLS;
    const m = refs[sb + StrCol.METHOD]!, p = refs[sb + StrCol.PATH]!, q = refs[sb + StrCol.QUERY]!;
    if (m !== method || p !== path || q !== query) {
      method = m; path = p; query = q;
      request = requestField(text(m), text(p), text(q));
    }
    const n = refs[sb + StrCol.API_NAME]!, v = refs[sb + StrCol.API_VERSION]!;
    if (n !== apiName || v !== apiVersion) {
      apiName = n; apiVersion = v;
      api = n < 0 ? '-' : token(`${text(n)}:${text(v)}`);
    }
    // The user and the application are the caller's: none without an application (as in readCalls).
    const hasCaller = refs[sb + StrCol.APPLICATION]! >= 0;
    out += combinedLine(
      tokenOf(refs[sb + StrCol.CLIENT_IP]!), hasCaller ? tokenOf(refs[sb + StrCol.USER]!) : '-', nu[nb + NumCol.STARTED_AT]!, request,
      nu[nb + NumCol.STATUS]!, nu[nb + NumCol.BYTES]!, quotedOf(refs[sb + StrCol.REFERER]!), quotedOf(refs[sb + StrCol.USER_AGENT]!),
      nu[nb + NumCol.DURATION_MS]!, api, hasCaller ? tokenOf(refs[sb + StrCol.APPLICATION]!) : '-', nu[nb + NumCol.ERROR_CODE]!,
    );
  }
  return out;
}

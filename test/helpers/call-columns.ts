import { type CallColumnsWriter, NumCol, StrCol } from '../../engine/gateway/telemetry/call-columns.js';
import type { CallRecord } from '../../engine/gateway/telemetry/types.js';

/** Writes a record into the columns as the io thread's recorder writes a finished call. */
export function writeCall(w: CallColumnsWriter, r: CallRecord, grouped = false): void {
  w.next();
  w.num(NumCol.STARTED_AT, r.startedAt); w.num(NumCol.DURATION_MS, r.durationMs); w.num(NumCol.SECURE, r.secure ? 1 : 0);
  w.num(NumCol.STATUS, r.status); w.num(NumCol.BYTES, r.bytes); w.num(NumCol.BACKEND_LATENCY_MS, r.backendLatencyMs);
  w.num(NumCol.BACKEND_STARTED_AT, r.backendStartedAt); w.num(NumCol.ERROR_CODE, r.errorCode);
  w.str(StrCol.METHOD, r.method); w.str(StrCol.PATH, r.path); w.str(StrCol.QUERY, r.query); w.str(StrCol.CLIENT_IP, r.clientIp);
  w.str(StrCol.USER_AGENT, r.userAgent); w.str(StrCol.REFERER, r.referer);
  // With `grouped`, the API's and the caller's columns go as the recorder writes them: skipped (`same`) when
  // the record's api or auth is the object the previous row's were written from.
  if (!grouped || !w.same(StrCol.API_NAME, StrCol.API_TYPE - StrCol.API_NAME + 1, r.api)) {
    w.str(StrCol.API_NAME, r.api?.name ?? null); w.str(StrCol.API_VERSION, r.api?.version ?? null); w.str(StrCol.API_CONTEXT, r.api?.context ?? null);
    w.str(StrCol.API_TYPE, r.api?.type ?? null);
  }
  w.str(StrCol.API_RESOURCE, r.api?.resource ?? null);
  if (!grouped || !w.same(StrCol.APPLICATION, StrCol.APPLICATION_TIER - StrCol.APPLICATION + 1, r.auth)) {
    w.str(StrCol.APPLICATION, r.auth?.application ?? null); w.str(StrCol.OWNER, r.auth?.owner ?? null); w.str(StrCol.KEY_TYPE, r.auth?.keyType ?? null);
    w.str(StrCol.USER, r.auth?.user ?? null); w.str(StrCol.TIER, r.auth?.tier ?? null); w.str(StrCol.APPLICATION_TIER, r.auth?.applicationTier ?? null);
  }
  w.str(StrCol.BACKEND_URL, r.backendUrl); w.str(StrCol.ERROR_MESSAGE, r.errorMessage);
  if (r.requestHeaders || r.responseHeaders || r.trace) w.extra([r.requestHeaders, r.responseHeaders, r.trace]);
}

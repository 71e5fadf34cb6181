import type { CallRecord, TraceRecord } from './types.js';

/**
 * A CallRecord as it crosses from an io thread to the main thread: a flat array of primitives (nested
 * arrays for the caller, headers and trace). Structured clone of such arrays costs a third of the same
 * data as objects, and the io thread pays the serialisation. Positions are fixed here, in one place.
 */
export type CallTuple = readonly unknown[];

export function encodeCall(r: CallRecord): CallTuple {
  const a = r.api;
  const u = r.auth;
  const t = r.trace;
  return [
    r.startedAt, r.durationMs, r.method, r.path, r.query, r.clientIp, r.secure ? 1 : 0, r.status, r.bytes, r.userAgent, r.referer,
    a ? a.name : null, a ? a.version : '', a ? a.context : '', a ? a.type : '', a ? a.resource : '',
    u ? [u.application, u.owner, u.keyType, u.user, u.tier, u.applicationTier] : null,
    r.backendLatencyMs, r.backendStartedAt, r.backendUrl, r.errorCode, r.errorMessage,
    r.requestHeaders, r.responseHeaders,
    t ? [t.traceId, t.spanId, t.parentId, t.backendSpanId, t.sampled ? 1 : 0] : null,
    r.thread,
  ];
}

export function decodeCall(x: CallTuple): CallRecord {
  const u = x[16] as string[] | null;
  const t = x[24] as [string, string, string, string, number] | null;
  const trace: TraceRecord | null = t ? { traceId: t[0], spanId: t[1], parentId: t[2], backendSpanId: t[3], sampled: t[4] === 1 } : null;
  return {
    startedAt: x[0] as number, durationMs: x[1] as number, method: x[2] as string, path: x[3] as string, query: x[4] as string,
    clientIp: x[5] as string, secure: x[6] === 1, status: x[7] as number, bytes: x[8] as number, userAgent: x[9] as string, referer: x[10] as string,
    api: x[11] === null ? null : { name: x[11] as string, version: x[12] as string, context: x[13] as string, type: x[14] as string, resource: x[15] as string },
    auth: u ? { application: u[0]!, owner: u[1]!, keyType: u[2]!, user: u[3]!, tier: u[4]!, applicationTier: u[5]! } : null,
    backendLatencyMs: x[17] as number, backendStartedAt: x[18] as number, backendUrl: x[19] as string, errorCode: x[20] as number, errorMessage: x[21] as string,
    requestHeaders: x[22] as string[] | null, responseHeaders: x[23] as string[] | null,
    trace,
    thread: x[25] as number,
  };
}

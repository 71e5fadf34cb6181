import crypto from 'node:crypto';
import type { Call } from '../../kernel/call.js';
import { PhaseResult, type GatewayPhase } from '../../kernel/phase.js';
import type { TraceRecord } from '../../kernel/call.js';

/**
 * Trace context of a gateway call ([apim.open_tracer]): read from the caller's B3 headers (X-B3-TraceId,
 * X-B3-SpanId, X-B3-Sampled, X-B3-Flags, or the single `b3` header) or W3C `traceparent`, created when
 * absent, and propagated to the backend in both forms with the backend span as the parent. Only runs when
 * tracing is on: the phase is not in the list otherwise.
 */

const POOL = Buffer.allocUnsafe(4096);
let poolOffset = POOL.length;

/** `bytes` random bytes as lower-case hex, from a pool refilled 4 KiB at a time. */
function randomHex(bytes: number): string {
  if (poolOffset + bytes > POOL.length) { crypto.randomFillSync(POOL); poolOffset = 0; }
  const s = POOL.toString('hex', poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return s;
}

export const newSpanId = (): string => randomHex(8);
export const newTraceId = (): string => randomHex(16);

const HEX16 = /^[0-9a-f]{16}$/;
const HEX16_32 = /^(?:[0-9a-f]{16}|[0-9a-f]{32})$/;
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;
const ZEROS = /^0+$/;

/** Names of the incoming propagation headers that the gateway replaces with its own. */
const PROPAGATION = new Set(['x-b3-traceid', 'x-b3-spanid', 'x-b3-parentspanid', 'x-b3-sampled', 'x-b3-flags', 'b3', 'traceparent']);

export interface IncomingTrace {
  traceId: string;
  parentId: string;
  sampled: boolean;
}

/** Reads the caller's trace context from flat lower-case request headers; null when there is none (or it is malformed). */
export function readIncoming(h: readonly string[]): IncomingTrace | null {
  let b3Trace = '', b3Span = '', b3Sampled = '', b3Flags = '', b3Single = '', traceparent = '';
  for (let i = 0; i < h.length; i += 2) {
    const n = h[i]!;
    if (n.length < 2 || !PROPAGATION.has(n)) continue;
    const v = h[i + 1]!.trim().toLowerCase();
    switch (n) {
      case 'x-b3-traceid': b3Trace = v; break;
      case 'x-b3-spanid': b3Span = v; break;
      case 'x-b3-sampled': b3Sampled = v; break;
      case 'x-b3-flags': b3Flags = v; break;
      case 'b3': b3Single = v; break;
      case 'traceparent': traceparent = v; break;
    }
  }
  let sampledFlag: boolean | null = null;
  if (b3Sampled !== '') sampledFlag = b3Sampled === '1' || b3Sampled === 'true';
  if (b3Flags === '1') sampledFlag = true;
  if (HEX16_32.test(b3Trace) && !ZEROS.test(b3Trace)) {
    return { traceId: b3Trace, parentId: HEX16.test(b3Span) ? b3Span : '', sampled: sampledFlag ?? true };
  }
  if (b3Single !== '') {
    const parts = b3Single.split('-');
    if (parts.length >= 2 && HEX16_32.test(parts[0]!) && !ZEROS.test(parts[0]!) && HEX16.test(parts[1]!)) {
      const s = parts[2];
      return { traceId: parts[0]!, parentId: parts[1]!, sampled: s === undefined ? true : s === '1' || s === 'd' };
    }
  }
  const m = TRACEPARENT.exec(traceparent);
  if (m && m[1] !== 'ff' && !ZEROS.test(m[2]!) && !ZEROS.test(m[3]!)) {
    return { traceId: m[2]!, parentId: m[3]!, sampled: (parseInt(m[4]!, 16) & 1) === 1 };
  }
  return null;
}

/** The call's trace: continues the caller's or starts one. */
export function traceFor(ctx: Call): TraceRecord {
  const incoming = readIncoming(ctx.reqHeaders);
  return {
    traceId: incoming?.traceId ?? newTraceId(),
    spanId: newSpanId(),
    parentId: incoming?.parentId ?? '',
    backendSpanId: newSpanId(),
    sampled: incoming?.sampled ?? true,
  };
}

/**
 * The last phase before the sender when tracing is on: gives the call its trace and replaces the caller's
 * propagation headers with the gateway's (the backend span as parent), in B3 and W3C forms.
 */
export class TracePhase implements GatewayPhase {
  readonly name = 'trace';

  onRequest(ctx: Call): PhaseResult {
    const t = traceFor(ctx);
    ctx.trace = t;
    const h = ctx.reqHeaders;
    for (let i = 0; i < h.length; i += 2) if (PROPAGATION.has(h[i]!)) ctx.removeBackendHeader(h[i]!);
    const flags = t.sampled ? '01' : '00';
    const w3cTrace = t.traceId.length === 32 ? t.traceId : t.traceId.padStart(32, '0');
    ctx.addBackendHeaders(
      'x-b3-traceid', t.traceId,
      'x-b3-spanid', t.backendSpanId,
      'x-b3-parentspanid', t.spanId,
      'x-b3-sampled', t.sampled ? '1' : '0',
      'traceparent', `00-${w3cTrace}-${t.backendSpanId}-${flags}`,
    );
    return PhaseResult.CONTINUE;
  }
}

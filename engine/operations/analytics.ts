import type { AnalyticsView } from '../../conf/views/operations.js';
import type { CallRecord } from '../gateway/telemetry/types.js';
import { FileSink } from './file-sink.js';
import { errorKind } from '../../errors/catalogue.js';
import { joinMember } from '../../mediation/members.js';

/**
 * The analytics event of one completed gateway call ([apim.analytics] type "log"), one JSON object per
 * line of <home>/repository/logs/analytics.log. Field names follow the reference system's analytics
 * event; docs/operations.md lists them. Latencies in milliseconds.
 */
export interface AnalyticsEvent {
  readonly eventType: 'response' | 'fault';
  readonly requestTimestamp: string;
  readonly correlationId: string;
  readonly apiName: string | null;
  readonly apiVersion: string | null;
  readonly apiContext: string | null;
  readonly apiType: string | null;
  readonly apiResourceTemplate: string | null;
  readonly apiMethod: string;
  readonly applicationName: string | null;
  readonly applicationOwner: string | null;
  readonly keyType: string | null;
  readonly userName: string | null;
  readonly subscriptionTier: string | null;
  readonly applicationTier: string | null;
  readonly proxyResponseCode: number;
  readonly targetResponseCode: number | null;
  readonly responseLatency: number;
  readonly backendLatency: number | null;
  readonly gatewayLatency: number;
  readonly errorCode: number | null;
  readonly errorMessage: string | null;
  readonly errorType: string | null;
  readonly userIp: string;
  readonly userAgent: string;
  readonly destination: string | null;
  readonly properties: {
    readonly requestHeaders?: Readonly<Record<string, string>>;
    readonly responseHeaders?: Readonly<Record<string, string>>;
    readonly responseSize?: number;
  };
}

const round = (ms: number): number => Math.round(ms * 1000) / 1000;


function headerObject(flat: readonly string[] | null): Record<string, string> | undefined {
  if (flat === null) return undefined;
  // Names are the client's and the backend's: own members only (a header named constructor or __proto__ is one).
  const o: Record<string, string> = {};
  for (let i = 0; i < flat.length; i += 2) {
    const k = flat[i]!.toLowerCase();
    joinMember(o, k, flat[i + 1]!, ', ');
  }
  return o;
}

export function analyticsEvent(r: CallRecord, view: Pick<AnalyticsView, 'sendHeaders' | 'buildResponseMessage'>): AnalyticsEvent {
  const backend = r.backendLatencyMs >= 0 ? round(r.backendLatencyMs) : null;
  const properties: { requestHeaders?: Record<string, string>; responseHeaders?: Record<string, string>; responseSize?: number } = {};
  if (view.sendHeaders) {
    const req = headerObject(r.requestHeaders);
    const res = headerObject(r.responseHeaders);
    if (req) properties.requestHeaders = req;
    if (res) properties.responseHeaders = res;
  }
  if (view.buildResponseMessage) properties.responseSize = r.bytes;
  return {
    eventType: r.errorCode !== 0 ? 'fault' : 'response',
    requestTimestamp: new Date(r.startedAt).toISOString(),
    correlationId: r.trace?.traceId ?? '',
    apiName: r.api?.name ?? null,
    apiVersion: r.api?.version ?? null,
    apiContext: r.api?.context ?? null,
    apiType: r.api?.type ?? null,
    apiResourceTemplate: r.api?.resource || null,
    apiMethod: r.method,
    applicationName: r.auth?.application ?? null,
    applicationOwner: r.auth?.owner ?? null,
    keyType: r.auth?.keyType ?? null,
    userName: r.auth?.user ?? null,
    subscriptionTier: r.auth?.tier ?? null,
    applicationTier: r.auth?.applicationTier ?? null,
    proxyResponseCode: r.status,
    targetResponseCode: backend !== null ? r.status : null,
    responseLatency: round(r.durationMs),
    backendLatency: backend,
    gatewayLatency: round(backend !== null ? Math.max(0, r.durationMs - backend) : r.durationMs),
    errorCode: r.errorCode !== 0 ? r.errorCode : null,
    errorMessage: r.errorCode !== 0 ? r.errorMessage : null,
    errorType: errorKind(r.errorCode),
    userIp: r.clientIp,
    userAgent: r.userAgent,
    destination: r.backendUrl || null,
    properties,
  };
}

/** Writes analytics events off the hot path (the io thread only posted the record). */
export class AnalyticsLog {
  private readonly sink: FileSink;

  constructor(readonly view: AnalyticsView) {
    this.sink = new FileSink(view.file);
  }

  write(r: CallRecord): void {
    this.sink.write(JSON.stringify(analyticsEvent(r, this.view)) + '\n');
  }

  reopen(): void {
    this.sink.reopen();
  }

  close(): Promise<void> {
    return this.sink.close();
  }
}

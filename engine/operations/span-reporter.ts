/** A span as Sluice builds it for a call (tracing.ts spansOf): Zipkin JSON v2, which every reporter starts from. */
export interface ZipkinSpan {
  readonly traceId: string;
  readonly id: string;
  readonly parentId?: string;
  readonly name: string;
  readonly kind: 'SERVER' | 'CLIENT';
  /** Microseconds since the epoch. */
  readonly timestamp: number;
  readonly duration: number;
  readonly localEndpoint: { readonly serviceName: string };
  readonly remoteEndpoint?: { readonly serviceName?: string; readonly ipv4?: string; readonly ipv6?: string; readonly port?: number };
  readonly tags: Readonly<Record<string, string>>;
}

/** Where spans go: a Zipkin collector, the tracer log, an OTLP collector (tracing.ts reportersFor). */
export interface SpanReporter {
  add(spans: readonly ZipkinSpan[]): void;
  close(): Promise<void>;
}

import type { ApiDefinition } from '../registry/types.js';
import type { SequenceSet, CodecSettings } from '../../mediation/index.js';
import type { LogSettings } from '../log/logger.js';
import type { GatewayThreadInit } from './gateway-thread.js';
import type { TelemetryBatch } from './telemetry/types.js';

/** workerData of an io thread. */
export interface IoThreadData {
  readonly gateway: GatewayThreadInit;
  readonly log: LogSettings;
  readonly codecs: CodecSettings;
}

/** Main thread -> io thread. Messages with an `ack` number are answered with `{ type: 'ack', ack }`. */
export type ToIoThread =
  | { readonly type: 'apis'; readonly apis: readonly ApiDefinition[]; readonly ack: number }
  | { readonly type: 'sequences'; readonly set: SequenceSet; readonly ack: number }
  | { readonly type: 'state'; readonly key: string; readonly value: unknown; readonly ack: number }
  /** Send the telemetry gathered so far (a /metrics scrape), then ack. */
  | { readonly type: 'flush'; readonly ack: number }
  | { readonly type: 'stop'; readonly deadlineMs: number };

/** Io thread -> main thread. */
export type FromIoThread =
  | { readonly type: 'ready'; readonly ports: { readonly http?: number; readonly https?: number } }
  | { readonly type: 'fatal'; readonly message: string }
  /** An uncaught exception after the start: the thread stops (then sends `stopped`) to be restarted. */
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'ack'; readonly ack: number }
  | { readonly type: 'extension'; readonly name: string; readonly payload: unknown }
  /** Access-log / analytics / tracing records, metric deltas and gauges (engine/gateway/telemetry/types.ts). */
  | { readonly type: 'telemetry'; readonly batch: TelemetryBatch }
  | { readonly type: 'stopped' };

import type { Logger } from 'pino';
import type { HeaderRules } from '../../transport/header-rules.js';
import type { FaultRenderer } from '../kernel/fault.js';
import type { Pipeline } from '../kernel/phase.js';
import type { RepeatedWarnings } from '../log/repeated-warnings.js';
import type { ApiMediation } from './api-mediation.js';
import type { WorkerPool } from './worker-pool.js';

/** [passthru_http] max_buffered_request_body_size / max_buffered_response_body_size; an API may lower or raise either. */
export interface BufferLimits {
  readonly request: number;
  readonly response: number;
}

/**
 * What a message needs from its io thread (GatewayThread provides it; a phase test builds a small one). `M` is
 * the message (MessageContext), left open here so that this file imports none of the message's files.
 */
export interface GatewayRuntime<M> {
  readonly log: Logger;
  /** Per-call warnings (backend failures, timeouts) go through it: one line per kind and window, with a count. */
  readonly warnings: RepeatedWarnings;
  /** The phases a message runs, replaced whole when the enabled set changes (engine/gateway/phase-list.ts). */
  readonly pipeline: Pipeline;
  readonly faults: FaultRenderer;
  readonly headerRules: HeaderRules;
  readonly workerPool: WorkerPool;
  readonly mediation: ApiMediation;
  readonly ioBufferSize: number;
  /** Caps of what must be held whole: request bodies and out-sequence responses, bytes ([passthru_http]). */
  readonly bufferLimits: BufferLimits;
  /** A message ended (answered, failed or abandoned): release its slot, publish the call event. */
  onMessageDone(message: M): void;
  /** A message started: tracked for the global timeout and graceful stop. */
  onMessageStart(message: M): void;
}

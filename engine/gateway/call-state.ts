import { performance } from 'node:perf_hooks';
import type { Exchange } from '../../transport/sender/exchange.js';
import type { BodyBuffer } from '../kernel/body-buffer.js';
import { FaultSequence } from '../../errors/fault-sequences.js';
import { CallStage, type AuthContext, type TerminalStep, type TokenFacts, type TraceRecord } from '../kernel/call.js';
import type { ClientSide } from '../kernel/response-writer.js';
import type { NumberField } from '../../transport/number-lines.js';
import type { ApiRuntime, ResourceRuntime } from '../routing/api-router.js';
import type { BackendTarget } from '../routing/backend-target.js';
import type { ApiEndpoints } from '../routing/deployed-apis.js';
import type { GatewayRuntime } from './gateway-runtime.js';

const NONE: readonly string[] = Object.freeze([]);

/** The message's hold on a worker pool slot. */
export const Slot = {
  NONE: 0,
  WAITING: 1,
  HELD: 2,
} as const;
export type Slot = (typeof Slot)[keyof typeof Slot];

/**
 * The facts of one call through the gateway (the first layer of MessageContext): the request as the front
 * door normalised it, what the phases found (API, resource, caller, target), where the call is, and the
 * counters of both directions. Every field is set here, so that every call has the same shape. The layers
 * above add behaviour: call-answers.ts (local answers and faults), backend-side.ts (the backend exchange and
 * the response), message-context.ts (the client's body and the phases).
 */
export class CallState {
  // ---- the request ----
  method = '';
  /** The normalised path (no query), e.g. `/pizzashack/1.0.0/menu` (transport/front-door/request-target.ts). */
  path = '';
  /** Query without `?`, '' when none. */
  query = '';
  /** Fewest path segments left while `..` segments were resolved, -1 when there were none (RequestHead). */
  minDepth = -1;
  /** Flat [name, value, ...], names lower-case (the front door's RequestHead). */
  reqHeaders: string[];
  clientIp = '';
  secure = false;
  /** Its place in the io thread's InFlightCalls, -1 when not listed. */
  inFlightIndex = -1;
  /** -1: no Content-Length. */
  contentLength = -1;
  chunked = false;
  readonly startedAt: number;

  // ---- what the phases found ----
  api: ApiRuntime | null = null;
  resource: ResourceRuntime | null = null;
  resourcePath = '/';
  /** Set by authenticate: the validated token. */
  token: TokenFacts | null = null;
  /** Set by authorize: the token's facts with this call's subscription. */
  auth: AuthContext | null = null;
  target: BackendTarget | null = null;
  /** The API's endpoints in the deployment the call was routed on: a redeployment never changes them under the call. */
  endpoints: ApiEndpoints | null = null;
  /** Replaces the HTTP sender at the end of the phases (a WebSocket handshake); null for HTTP calls. */
  terminal: TerminalStep | null = null;
  /** An in sequence rewrote `reqHeaders`: they are checked whole before the backend head is written. */
  headersMediated = false;
  // Headers the phases add or remove, made on first use only (most calls need none).
  protected addedBackend: string[] | null = null;
  protected removedBackend: string[] | null = null;
  protected addedResponse: string[] | null = null;
  /** Some of `addedResponse` came from addResponseHeaders: the head is checked before it is written. */
  protected addedResponseUnchecked = false;
  /**
   * Response numbers (the X-RateLimit fields), flat [field, value, ...]: a proxied head writes them as bytes
   * (transport/number-lines.ts); anything else that asks for the added headers gets them as text (extraResponseHeaders).
   */
  protected addedNumbers: (NumberField | number)[] | null = null;
  /** Properties set by mediation or phases for later phases and the fault sequences. */
  properties: Map<string, unknown> | null = null;
  trace: TraceRecord | null = null;
  /** The next phase to run (engine/kernel/phase-runner.ts). */
  phaseIndex = 0;
  phase: CallStage = CallStage.RECEIVED;
  slot: Slot = Slot.NONE;

  // ---- the client side ----
  aborted = false;
  /** A byte of the response has been written to the client. */
  responseStarted = false;
  finished = false;
  protected clientPaused = false;
  /** Request body held before the exchange exists, or whole (bufferWholeBody); made on the first piece held. */
  protected body: BodyBuffer | null = null;
  bodyComplete = false;
  /** The body must be whole before the call goes on (validation, content-aware mediation). */
  bufferWholeBody = false;
  protected bodyWaiter: (() => void) | null = null;
  /** The answer ends the client connection (a refusal at the door's level: what follows cannot be trusted). */
  closeConnection = false;

  // ---- the backend side ----
  exchange: Exchange | null = null;
  respStatus = 0;
  protected respStatusText = '';
  /** The backend's response headers, flat, as received (null before they arrive). */
  respHeaders: string[] | null = null;
  /** Content-Length of the response, -1 when chunked or close-delimited. */
  protected respTotal = -1;
  protected respNoBody = false;
  respBytes = 0;
  /** Request body bytes received from the client (metrics). */
  reqBytes = 0;
  /** The API's out sequence reads the body: the response is held whole and written at its end. */
  protected heldResponse: Buffer[] | null = null;
  protected heldBytes = 0;
  protected heldLimit = 0;
  /** An out sequence rewrote `respHeaders`: they are checked whole before the response head is written. */
  protected respMediated = false;
  /** The fault that ended the call, for logs and the access log. */
  errorCode = 0;
  errorMessage = '';
  /** A transport error's base code and protocol state (metrics); 0 / -1 when the call had none. */
  errorBase = 0;
  errorState = -1;
  backendStartedAt = 0;
  backendLatencyMs = -1;

  constructor(readonly gw: GatewayRuntime<CallState>, readonly x: ClientSide) {
    this.startedAt = performance.now();
    const h = x.head;
    this.method = h.method;
    this.path = h.path;
    this.query = h.query;
    this.minDepth = h.minDepth;
    this.reqHeaders = h.headers;
    this.contentLength = h.contentLength;
    this.chunked = h.chunked;
    this.bodyComplete = !h.hasBody;
    this.clientIp = x.clientIp;
    this.secure = x.secure;
  }

  get hasBody(): boolean {
    return this.contentLength > 0 || this.chunked;
  }

  header(name: string): string | undefined {
    const h = this.reqHeaders;
    for (let i = 0; i < h.length; i += 2) if (h[i] === name) return h[i + 1];
    return undefined;
  }

  /** Request headers the phases add for the backend (X-JWT-Assertion...), flat [name, value, ...]. */
  get extraBackendHeaders(): readonly string[] {
    return this.addedBackend ?? NONE;
  }

  addBackendHeaders(...nameValues: string[]): void {
    (this.addedBackend ??= []).push(...nameValues);
  }

  /** Request header names (lower-case) the phases consumed and that must not reach the backend. */
  get removedBackendHeaders(): readonly string[] {
    return this.removedBackend ?? NONE;
  }

  removeBackendHeader(lowerName: string): void {
    const list = this.removedBackend;
    // The first name in a literal of its size: an empty array grows on its first push (a builtin call).
    if (list === null) this.removedBackend = [lowerName];
    else if (!list.includes(lowerName)) list.push(lowerName);
  }

  /** Response headers the phases add for the client (CORS, rate limits), flat [name, value, ...]. */
  get extraResponseHeaders(): readonly string[] {
    const numbers = this.addedNumbers;
    if (numbers !== null) {
      // Asked for as pairs (a local answer, a WebSocket handshake, a check): the numbers join them as text.
      this.addedNumbers = null;
      const list = (this.addedResponse ??= []);
      for (let i = 0; i < numbers.length; i += 2) list.push((numbers[i] as NumberField).name, `${numbers[i + 1] as number}`);
    }
    return this.addedResponse ?? NONE;
  }

  /** The added headers are dropped (a local answer that could not carry them). */
  protected dropAddedResponse(): void {
    this.addedResponse = null;
    this.addedNumbers = null;
    this.addedResponseUnchecked = false;
  }

  addResponseHeaders(...nameValues: string[]): void {
    (this.addedResponse ??= []).push(...nameValues);
    this.addedResponseUnchecked = true;
  }

  addResponseNumber(field: NumberField, value: number): void {
    this.addResponseNumbers([field, value]);
  }

  addResponseNumbers(numbers: (NumberField | number)[]): void {
    const list = this.addedNumbers;
    // The first list is kept as it came: an empty array grew on its first push (a builtin call a call).
    if (list === null) this.addedNumbers = numbers;
    else for (let i = 0; i < numbers.length; i++) list.push(numbers[i]!);
  }

  /** The fault sequence of the call's API (its own `fault_sequence`), else the shipped `fault`. */
  get faultSequence(): string {
    return this.api?.def.faultSequence ?? FaultSequence.FAULT;
  }

  /** Stop reading the client's request body (the backend or the buffer is full). */
  protected pauseClient(): void {
    if (this.clientPaused || this.aborted) return;
    this.clientPaused = true;
    this.x.pauseBody();
  }

  protected resumeClient(): void {
    if (!this.clientPaused || this.aborted) return;
    this.clientPaused = false;
    this.x.resumeBody();
  }
}

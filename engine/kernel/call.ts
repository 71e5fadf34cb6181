import type { ErrorEntry, FaultExtra, FaultInfo } from '../../errors/error-entry.js';
import type { CallFacts } from '../../mediation/index.js';
import type { BackendTransportError } from '../../transport/transport-errors.js';
import type { NumberField } from '../../transport/number-lines.js';
import type { ApiRuntime, ResourceRuntime } from '../routing/api-router.js';
import type { BackendTarget } from '../routing/backend-target.js';
import type { ApiEndpoints } from '../routing/deployed-apis.js';

/** Who a token speaks for: validated once, cached, shared by the calls that present it. */
export interface TokenFacts {
  readonly application: string;
  readonly subscriber: string;
  readonly consumerKey: string;
  readonly keyType: 'PRODUCTION' | 'SANDBOX';
  /** The end user (the application owner for application tokens). */
  readonly user: string;
  readonly userType: 'APPLICATION' | 'APPLICATION_USER';
  readonly scopes: readonly string[];
  /** JWT `jti`, or the base64url SHA-256 of an opaque token: the revocation key. */
  readonly tokenId: string;
  /** API_KEY and BASIC: the API's other security schemes (engine/security/api-key-auth.ts, basic-auth.ts). */
  readonly tokenType: 'JWT' | 'OPAQUE' | 'API_KEY' | 'BASIC';
  /** The application's throttling policy. */
  readonly applicationTier: string;
  /** The token's claims (JWT), for claim-based throttling and the backend JWT. */
  readonly claims: Readonly<Record<string, unknown>> | null;
  /** When the token expires, ms since epoch. */
  readonly expiresAt: number;
}

/** Who is calling (the token's facts) and the subscription this call uses. */
export interface AuthContext extends TokenFacts {
  /** The subscription's throttling policy for this API. */
  readonly tier: string;
}

/** The trace of a call, set by the trace phase when tracing is on (engine/gateway/telemetry/trace.ts). */
export interface TraceRecord {
  /** 32 or 16 lower-case hex digits, as received or generated. */
  readonly traceId: string;
  /** The gateway's span (16 hex). */
  readonly spanId: string;
  /** The caller's span when it sent one, else ''. */
  readonly parentId: string;
  /** The backend (client) span, whose id went to the backend in X-B3-SpanId / traceparent. */
  readonly backendSpanId: string;
  readonly sampled: boolean;
}

/**
 * The step that ends the pipeline in place of the HTTP sender. A WebSocket handshake sets one
 * (engine/websocket/handshake.ts): when every phase has continued, it opens the backend WebSocket and
 * upgrades the client instead of starting an HTTP exchange. It answers through the call like the sender
 * does (`fault`, `onError`, `respond`, or `finish` once upgraded).
 */
export interface TerminalStep {
  dispatch(call: Call): void;
  /** The client went away before the step answered. */
  abort(): void;
}

/** Where a call is in its life, for logs, the global timeout and the access log. */
export const CallStage = {
  RECEIVED: 0,
  QUEUED: 1,
  PIPELINE: 2,
  SENDING: 3,
  RESPONDING: 4,
  DONE: 5,
} as const;
export type CallStage = (typeof CallStage)[keyof typeof CallStage];

/**
 * One call through the gateway as its phases see it (the call context): the request's facts, what earlier
 * phases found, and the ways to answer. engine/gateway/message-context.ts implements it; a phase test builds
 * one in-process over a fake response writer (test/helpers/inject.ts).
 *
 * Every field exists from the call's start (a fixed shape); what a phase has not found yet is null.
 */
export interface Call {
  // ---- the request (the front door's normalised facts) ----
  readonly method: string;
  /** The normalised path, no query (`/pizzashack/1.0.0/menu`): what routing, scopes and the backend see. */
  readonly path: string;
  /** The query without `?`, '' when none. A phase may take a credential out of it (WebSocket `access_token`). */
  query: string;
  /** Fewest path segments left while `..` segments were resolved, -1 when there were none. */
  readonly minDepth: number;
  /** The request's header fields, flat [name, value, ...], names lower-case. An in sequence may rewrite them. */
  readonly reqHeaders: string[];
  readonly clientIp: string;
  readonly secure: boolean;
  /** -1: no Content-Length. */
  readonly contentLength: number;
  readonly hasBody: boolean;
  readonly startedAt: number;
  header(lowerName: string): string | undefined;

  // ---- what the phases found ----
  api: ApiRuntime | null;
  resource: ResourceRuntime | null;
  /** The path below the API's context and version (`/menu`). */
  resourcePath: string;
  /** Set by authenticate: the validated credential. */
  token: TokenFacts | null;
  /** Set by authorize: the token's facts with this call's subscription. */
  auth: AuthContext | null;
  /** Where the call goes: the production endpoint, or the sandbox one for a sandbox key. */
  target: BackendTarget | null;
  /** The API's endpoints in the deployment the call was routed on: a redeployment never changes them under the call. */
  endpoints: ApiEndpoints | null;
  /** Replaces the HTTP sender at the end of the phases (a WebSocket handshake); null for HTTP calls. */
  terminal: TerminalStep | null;
  /** An in sequence rewrote `reqHeaders`: they are checked whole before the backend head is written. */
  headersMediated: boolean;
  /** Properties set by mediation or phases for later phases and the fault sequences. */
  properties: Map<string, unknown> | null;
  trace: TraceRecord | null;
  /** The answer ends the client connection (what follows on it cannot be trusted). */
  closeConnection: boolean;
  addBackendHeaders(...nameValues: string[]): void;
  removeBackendHeader(lowerName: string): void;
  /** Response headers built from the call (an Origin, a mediation value): checked before the head is written. */
  addResponseHeaders(...nameValues: string[]): void;
  /**
   * A response header whose value is a number (the X-RateLimit-* fields): a checked name and digits, safe by
   * construction, so it alone does not make the head be checked again before it is written.
   */
  addResponseNumber(field: NumberField, value: number): void;
  /** Several numeric fields at once, flat [field, value, ...]; the call keeps the array, so pass a new one. */
  addResponseNumbers(numbers: (NumberField | number)[]): void;
  readonly extraBackendHeaders: readonly string[];
  readonly removedBackendHeaders: readonly string[];
  readonly extraResponseHeaders: readonly string[];

  // ---- the body, when a phase must read it whole ----
  /**
   * Calls `then` once the whole request body is here (at once when there is none). A body over the cap of
   * what this API reads whole is answered 413 instead, and `then` never runs.
   */
  whenBodyComplete(then: () => void): void;
  bufferedBody(): Buffer;
  replaceBody(body: Buffer): void;

  // ---- the backend's side, for the terminal step and telemetry ----
  backendStartedAt: number;
  backendLatencyMs: number;
  respStatus: number;
  responseStarted: boolean;
  /** Bytes of the request body received from the client, and of the response sent to it. */
  readonly reqBytes: number;
  readonly respBytes: number;

  // ---- where the call is, and how it is answered ----
  readonly finished: boolean;
  readonly aborted: boolean;
  /** Goes on with the next phase after a SUSPEND. */
  proceed(): void;
  /** Answers with a catalogue error (errors/), with what the call site sharpens. */
  raise(error: ErrorEntry, extra?: FaultExtra): void;
  /** Answers with a fault rendered by its sequence. */
  fault(info: FaultInfo): void;
  /** Answers locally (a preflight, a sequence's response). */
  respond(status: number, headers: readonly (readonly [string, string])[], body: Buffer | null): void;
  /** A backend (or backend WebSocket) failure before or during the response. */
  onError(err: BackendTransportError): void;
  /** The call is over for the gateway (a WebSocket handshake that upgraded). */
  finish(): void;
  /** Facts about the call for mediation (get-property('api.ut.api') and friends). */
  callFacts(): CallFacts;
}

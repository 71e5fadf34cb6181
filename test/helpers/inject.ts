// A call through gateway phases in-process, with no socket (as Envoy's filter tests and fastify's inject
// do): a real MessageContext over a fake client side that records what is written, and a small runtime of
// real components (the shipped fault sequences, header rules, worker pool). The phases under test are
// given as made objects; what they answered, or that they continued to the terminal step, comes back.
import pino, { type Logger } from 'pino';
import { MessageContext } from '../../engine/gateway/message-context.js';
import type { GatewayRuntime } from '../../engine/gateway/gateway-runtime.js';
import type { CallState } from '../../engine/gateway/call-state.js';
import { SequenceFaultRenderer } from '../../engine/gateway/sequence-faults.js';
import { ApiMediation } from '../../engine/gateway/api-mediation.js';
import { WorkerPool } from '../../engine/gateway/worker-pool.js';
import type { Call, TerminalStep } from '../../engine/kernel/call.js';
import { PhaseResult, type GatewayPhase, type Pipeline } from '../../engine/kernel/phase.js';
import type { ClientSide, RequestFacts } from '../../engine/kernel/response-writer.js';
import { RepeatedWarnings } from '../../engine/log/repeated-warnings.js';
import { HeaderRules } from '../../transport/header-rules.js';
import { NumberLines, type ResponseNumbers } from '../../transport/number-lines.js';
import { SequenceRegistry, defaultCodecs, type SequenceSet } from '../../mediation/index.js';

/** What a fake client side saw written. */
export interface Written {
  status: number;
  /** Header lines as written, names lower-cased: [name, value][] (the framing header included). */
  headers: [string, string][];
  body: Buffer;
  ended: boolean;
  aborted: boolean;
  /** The connection was to close after the answer. */
  closeAfter: boolean;
}

/** The client side of an injected call: the request's facts, and a writer that records instead of sending. */
export class FakeClient implements ClientSide {
  readonly written: Written = { status: 0, headers: [], body: Buffer.alloc(0), ended: false, aborted: false, closeAfter: false };
  readonly clientIp: string;
  readonly secure = false;
  paused = false;

  constructor(readonly head: RequestFacts, clientIp = '127.0.0.1') {
    this.clientIp = clientIp;
  }

  writeHead(status: number, _statusText: string, headerLines: string, framing: number, forceClose = false, numbers: ResponseNumbers | null = null): void {
    this.written.status = status;
    const numberLines = numbers === null ? '' : new NumberLines().of(numbers).toString('latin1');
    for (const line of `${headerLines}${numberLines}`.split('\r\n')) {
      const i = line.indexOf(':');
      if (i > 0) this.written.headers.push([line.slice(0, i).toLowerCase(), line.slice(i + 1).trim()]);
    }
    if (framing >= 0) this.written.headers.push(['content-length', String(framing)]);
    this.written.closeAfter = forceClose;
  }

  write(chunk: Buffer): boolean {
    this.written.body = Buffer.concat([this.written.body, chunk]);
    return true;
  }

  end(chunk?: Buffer | null): void {
    if (chunk) this.write(chunk);
    this.written.ended = true;
  }

  abort(): void { this.written.aborted = true; }
  continueBody(): void {}
  pauseBody(): void { this.paused = true; }
  resumeBody(): void { this.paused = false; }
}

/** A runtime of real components for calls made here; `done` lists the calls that finished. */
export function testRuntime(phases: readonly GatewayPhase[], o: { log?: Logger; sequences?: SequenceSet } = {}): GatewayRuntime<CallState> & { done: CallState[]; pipeline: Pipeline } {
  const log = o.log ?? pino({ level: 'silent' });
  const codecs = defaultCodecs();
  const registry = SequenceRegistry.compile(o.sequences ?? { generation: 1, sequences: [] }, { logger: log, codecs });
  const mediation = new ApiMediation(() => registry, codecs, log);
  mediation.deploy(o.sequences ?? { generation: 1, sequences: [] });
  const done: CallState[] = [];
  return {
    log,
    warnings: new RepeatedWarnings(log),
    pipeline: { names: phases.map((p) => p.name), steps: phases.map((p) => p.onRequest.bind(p)) },
    faults: new SequenceFaultRenderer(registry),
    headerRules: new HeaderRules({
      userAgentPreserve: false, serverPreserve: false, disableKeepAlive: false, warnOnHttp500: [], excludeFromClientResponse: [], excludeFromBackendRequest: [],
    }),
    workerPool: new WorkerPool({ core: 1, max: 1, queueLength: 0 }, log),
    mediation,
    ioBufferSize: 16384,
    bufferLimits: { request: 1024 * 1024, response: 1024 * 1024 },
    onMessageStart: () => {},
    onMessageDone: (m) => { done.push(m); },
    done,
  };
}

export interface InjectRequest {
  readonly method?: string;
  readonly path: string;
  readonly query?: string;
  /** Fewest segments left while the front door resolved `..` (a path that climbed); default: no climb. */
  readonly minDepth?: number;
  /** Header fields, names lower-case. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  /**
   * Ends the pipeline instead of the sender; default: one that records that it was reached. `null`: a plain
   * HTTP call, whose terminal step is the sender (end the phases under test with `answering(200)` then).
   */
  readonly terminal?: TerminalStep | null;
}

export interface Injected {
  readonly call: MessageContext;
  readonly client: FakeClient;
  /** The pipeline continued to its end: the terminal step was called (no answer written by a phase). */
  readonly reachedTerminal: boolean;
  /** The fault body's fields when the answer is a JSON fault. */
  readonly fault: { code: number; message: string; description: string } | null;
}

/**
 * Runs `req` through the phases of `runtime` synchronously, as the front door and the worker pool would
 * start it, with its whole body already received. Phases that SUSPEND go on when their work completes: await
 * `settle()` before reading the answer in that case.
 */
export function inject(runtime: GatewayRuntime<CallState>, req: InjectRequest): Injected {
  const headers: string[] = [];
  for (const [k, v] of Object.entries(req.headers ?? {})) headers.push(k, v);
  const body = req.body === undefined ? null : Buffer.from(req.body);
  if (body !== null) headers.push('content-length', String(body.length));
  const head: RequestFacts = {
    method: req.method ?? 'GET', path: req.path, query: req.query ?? '', minDepth: req.minDepth ?? -1, headers,
    contentLength: body === null ? -1 : body.length, chunked: false, hasBody: body !== null && body.length > 0,
  };
  const client = new FakeClient(head);
  const call = new MessageContext(runtime, client);
  let reached = false;
  call.terminal = req.terminal === undefined ? { dispatch: () => { reached = true; }, abort: () => {} } : req.terminal;
  runtime.onMessageStart(call);
  if (body !== null && body.length > 0) call.onRequestBody(body, true);
  call.onSlot();
  return {
    call,
    client,
    get reachedTerminal() { return reached; },
    get fault() { return faultIn(client.written); },
  };
}

function faultIn(w: Written): { code: number; message: string; description: string } | null {
  if (w.body.length === 0) return null;
  try {
    const j = JSON.parse(w.body.toString('utf8')) as { fault?: { code: number; message: string; description: string } };
    return j.fault ?? null;
  } catch {
    return null;
  }
}

/** A phase made of a function, for tests of the runner and of phases around it. */
export function phaseOf(name: string, onRequest: (call: Call) => number): GatewayPhase {
  return { name, onRequest: onRequest as GatewayPhase['onRequest'] };
}

/** A last phase standing in for the backend: answers `status` (a plain HTTP call that passed every phase). */
export function answering(status: number): GatewayPhase {
  return phaseOf('answer', (call) => { call.respond(status, [], null); return PhaseResult.STOP; });
}

/** Lets queued work (a worker-thread check, a timer of 0) run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

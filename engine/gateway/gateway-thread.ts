import type { Logger } from 'pino';
import { HeaderRules, type HeaderRulesSettings } from '../../transport/header-rules.js';
import { ProxyRules } from '../../transport/sender/proxy-rules.js';
import type { SenderProxyView, PassthruView, ListenerView } from '../../conf/views/passthru.js';
import type { GraphqlView } from '../../conf/views/security.js';
import type { ApiDefinition } from '../registry/types.js';
import { SenderPools, identityCheck, type SenderSettings } from '../routing/backend-target.js';
import { DeployedApis } from '../routing/deployed-apis.js';
import { SequenceFaultRenderer } from './sequence-faults.js';
import { SequenceRegistry, type SequenceSet, type Codecs } from '../../mediation/index.js';
import { MessageContext } from './message-context.js';
import { Slot } from './call-state.js';
import type { BufferLimits, GatewayRuntime } from './gateway-runtime.js';
import { CallStage, type Call, type TerminalStep } from '../kernel/call.js';
import { PhaseSet, type Pipeline } from '../kernel/phase.js';
import type { FeatureHost } from '../kernel/extension.js';
import { PHASES } from './phase-list.js';
import type { PhaseEnv } from './phase-env.js';
import { SharedStateReceiver } from '../kernel/shared-state.js';
import { GatewaySecurity } from '../security/gateway-security.js';
import { ApiMediation } from './api-mediation.js';
import { Admission, WorkerPool } from './worker-pool.js';
import { publishCall, hasCallSubscribers } from '../kernel/call-events.js';
import type { ThrottlePhase } from '../throttling/throttle-phase.js';
import { WebSocketGateway, type WebSocketSettings } from '../websocket/websocket-gateway.js';
import { ApiHandlerError } from '../../errors/api-handler.js';
import { GatewayError } from '../../errors/gateway.js';
import { InFlightCalls } from './in-flight-calls.js';
import { FrontDoor, type DoorTls } from '../../transport/front-door/front-door.js';
import type { DoorConfig } from '../../conf/views/front-door.js';
import type { DoorHandler } from '../../transport/front-door/door-handler.js';
import type { ClientExchange } from '../../transport/front-door/client-exchange.js';
import { REFUSALS, type DoorRefusal } from '../../transport/front-door/refusals.js';
import { RepeatedWarnings } from '../log/repeated-warnings.js';
import { performance } from 'node:perf_hooks';


/** Everything an io thread needs to start: plain data, posted from the main thread. */
export interface GatewayThreadInit {
  readonly index: number;
  readonly threads: number;
  readonly passthru: PassthruView;
  readonly listeners: { readonly http: ListenerView; readonly https: ListenerView };
  readonly tls: DoorTls | null;
  /** The front door's limits, rules and timeouts ([passthru_http], docs/security.md). */
  readonly door: DoorConfig;
  readonly sender: SenderSettings;
  readonly proxies: { readonly http: SenderProxyView; readonly https: SenderProxyView };
  readonly headers: HeaderRulesSettings;
  readonly globalTimeoutMs: number;
  readonly apis: readonly ApiDefinition[];
  readonly sequences: SequenceSet;
  /** Where the gateway forwards /token and /revoke (the key manager), with the certificates to trust. */
  readonly tokenApi: { readonly origin: string; readonly ca: readonly string[] } | null;
  /** WebSocket APIs ([sluice.websocket], [transport.ws], [transport.wss]). */
  readonly websocket: WebSocketSettings;
  /** Initial values of the shared state keys (see shared-state.ts). */
  readonly state: Readonly<Record<string, unknown>>;
  /** Mediation settings beyond the sequences: what `<respond/>` reflects, what the log mediator masks. */
  readonly mediation: { readonly respondReflectsRequestHeaders: boolean; readonly maskedHeaders: readonly string[] };
  /** [sluice.graphql] limits of a GraphQL query. */
  readonly graphql: GraphqlView;
}

/** At the end of a stop: time for the last responses to leave before every remaining socket is closed. */
const STOP_FLUSH_MS = 100;
const ALLOW_ALL = [['allow', 'GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS']] as const;

/** A refused target for the log: its first 256 characters, controls and bytes beyond ASCII escaped. */
function printableTarget(target: string): string | undefined {
  if (target === '') return undefined;
  // eslint-disable-next-line no-control-regex
  return target.slice(0, 256).replace(/[^\x20-\x7e]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * One io thread of the gateway: its front door (listeners and client connections), the phases, the sender pools
 * and the bounded worker pool. Everything here belongs to this thread; shared state arrives by message.
 */
export class GatewayThread implements GatewayRuntime<MessageContext>, DoorHandler, PhaseEnv, FeatureHost {
  /** The phases a message runs, replaced whole (never edited) when tracing is switched on or off. */
  pipeline: Pipeline;
  private readonly phaseSet: PhaseSet<PhaseEnv>;
  /** Tracing is on: the trace phase is in the pipeline (setTracing). */
  tracing = false;
  readonly state: SharedStateReceiver;
  readonly security: GatewaySecurity;
  readonly mediation: ApiMediation;
  readonly faults: SequenceFaultRenderer;
  readonly headerRules: HeaderRules;
  readonly workerPool: WorkerPool;
  readonly ioBufferSize: number;
  readonly bufferLimits: BufferLimits;
  readonly pools: SenderPools;
  readonly deployed: DeployedApis;
  readonly ws: WebSocketGateway;
  readonly warnings: RepeatedWarnings;
  private readonly inFlight = new InFlightCalls<MessageContext>();
  readonly door: FrontDoor;
  private readonly sweeper: NodeJS.Timeout;
  /** Stopping: every response closes its connection (Connection: close), so that busy clients let go. */
  draining = false;
  private drained: (() => void) | null = null;
  /** Limit of concurrent client requests on this thread (max_open_connections share), -1 none. */
  private readonly maxOpen: number;
  private acceptingPaused = false;
  requests = 0;

  constructor(
    readonly init: GatewayThreadInit,
    readonly log: Logger,
    private readonly codecs: Codecs,
    /** Sends a message to a main-thread extension (by name). */
    readonly notifyMain: (extension: string, payload: unknown) => void = () => {},
  ) {
    const p = init.passthru;
    this.warnings = new RepeatedWarnings(log);
    this.ioBufferSize = p.ioBufferSize;
    this.bufferLimits = { request: p.maxBufferedRequestBodySize, response: p.maxBufferedResponseBodySize };
    this.headerRules = new HeaderRules(init.headers);
    this.pools = new SenderPools(init.sender, new ProxyRules(init.proxies.http), new ProxyRules(init.proxies.https));
    this.deployed = new DeployedApis(this.pools, init.tokenApi?.origin ?? null, init.tokenApi?.ca);
    this.deployed.deploy(init.apis);
    this.faults = new SequenceFaultRenderer(SequenceRegistry.compile(init.sequences, { logger: log, codecs, maskedHeaders: init.mediation.maskedHeaders }));
    this.mediation = new ApiMediation(() => this.faults.registry, codecs, log, init.mediation);
    this.mediation.deploy(init.sequences);
    this.workerPool = new WorkerPool({ core: p.workerPoolCore, max: p.workerPoolMax, queueLength: p.workerPoolQueueLength }, log);
    this.state = new SharedStateReceiver(init.state);
    this.security = new GatewaySecurity(this.state, log, (payload) => this.notifyMain('security', payload));
    this.phaseSet = new PhaseSet(PHASES, this);
    this.pipeline = this.phaseSet.compile();
    const s = init.sender;
    this.ws = new WebSocketGateway(this, init.websocket, {
      ca: s.ca, checkServerIdentity: identityCheck(s.hostnameVerifier), clientKeyPem: s.clientKeyPem, clientCertPem: s.clientCertPem,
    }, this.faults.registry, init.sequences, s.connectTimeoutMs, (this.phaseSet.phase('throttle') as ThrottlePhase | undefined) ?? null);
    this.maxOpen = p.maxOpenConnections < 0 ? -1 : Math.max(1, Math.floor(p.maxOpenConnections / init.threads));
    this.door = new FrontDoor(init.door, this, Math.max(65536, p.ioBufferSize), init.threads > 1);
    this.sweeper = setInterval(() => this.sweep(), 1000);
    this.sweeper.unref();
  }

  /** Opens the listeners. Resolves with the ports that opened; rejects when a port cannot be bound. */
  async listen(): Promise<{ http?: number; https?: number }> {
    const out: { http?: number; https?: number } = {};
    const { http, https } = this.init.listeners;
    if (http.enabled) out.http = await this.door.listen({ bindAddress: http.bindAddress, port: http.port, tls: null });
    if (https.enabled && this.init.tls) out.https = await this.door.listen({ bindAddress: https.bindAddress, port: https.port, tls: this.init.tls });
    return out;
  }

  // ---- DoorHandler: what passes the front door ------------------------------------------------------

  onRequest(x: ClientExchange): void {
    const ctx = new MessageContext(this, x);
    x.attach(ctx);
    this.onMessageStart(ctx);
    if (x.head.path === '*') { ctx.respond(200, ALLOW_ALL, null); return; }
    this.admit(ctx);
  }

  /** A call for an exchange that ends in `terminal` instead of the sender (a WebSocket handshake): started, not yet admitted. */
  startCall(x: ClientExchange, terminal: TerminalStep): Call {
    const ctx = new MessageContext(this, x);
    ctx.terminal = terminal;
    x.attach(ctx);
    this.onMessageStart(ctx);
    return ctx;
  }

  onRefused(x: ClientExchange, r: DoorRefusal): void {
    const ctx = new MessageContext(this, x);
    this.onMessageStart(ctx);
    const info = REFUSALS[r.refusal];
    // A flood of bad requests (a scanner, a fuzzer) must not flood the log: one line per kind and window.
    this.warnings.info(`door ${info.code} ${r.refusal}`, { client: x.clientIp, method: x.head.method || undefined, target: printableTarget(x.head.target), status: info.status, reason: r.description },
      'request refused at the front door');
    ctx.fault(r.fault);
  }

  onUpgrade(x: ClientExchange): void {
    this.ws.upgrade(x);
  }

  /**
   * A started message (onMessageStart) whose request facts are set, an HTTP call or a WebSocket handshake:
   * a worker pool slot, then the phases. A full queue answers 503.
   */
  admit(ctx: MessageContext): void {
    const s = this.security.settings;
    if (s !== null) {
      const v = ctx.header(s.authHeader);
      // A token this long is no token Sluice issued; looking at it (a cache key, a signature check) is the cost.
      if (v !== undefined && v.length > this.init.passthru.maxBearerTokenBytes + 7 && /^bearer /i.test(v)) {
        ctx.closeConnection = true;
        ctx.raise(ApiHandlerError.INVALID_CREDENTIALS, { description: `The access token is longer than ${this.init.passthru.maxBearerTokenBytes} bytes` });
        return;
      }
    }
    const a = this.workerPool.admit(ctx);
    if (a === Admission.ADMITTED) { ctx.onSlot(); return; }
    if (a === Admission.QUEUED) { ctx.slot = Slot.WAITING; ctx.phase = CallStage.QUEUED; return; }
    this.warnings.warn('worker pool full', { path: ctx.path, max: this.workerPool.settings.max, queue: this.workerPool.settings.queueLength },
      'worker pool queue full: message dropped');
    ctx.raise(GatewayError.AT_CAPACITY);
  }

  onMessageStart(ctx: MessageContext): void {
    this.requests++;
    this.inFlight.add(ctx);
    if (this.maxOpen > 0 && this.inFlight.size >= this.maxOpen && !this.acceptingPaused) this.pauseAccepting();
  }

  onMessageDone(ctx: MessageContext): void {
    this.inFlight.delete(ctx);
    if (ctx.slot === Slot.HELD) this.workerPool.release();
    else if (ctx.slot === Slot.WAITING) this.workerPool.withdraw(ctx);
    ctx.slot = Slot.NONE;
    if (hasCallSubscribers()) publishCall(ctx);
    if (this.acceptingPaused && this.inFlight.size < this.maxOpen * 0.9) this.resumeAccepting();
    if (this.draining && this.inFlight.size === 0 && this.ws.sessionCount === 0 && this.drained) this.drained();
  }

  private pauseAccepting(): void {
    this.acceptingPaused = true;
    this.log.warn({ limit: this.maxOpen }, 'max_open_connections reached: not accepting new connections until calls finish');
    this.door.closeListeners();
  }

  private resumeAccepting(): void {
    this.acceptingPaused = false;
    if (this.draining) return;
    this.log.info('accepting connections again');
    this.listen().catch((e: Error) => this.log.error(e.message));
  }

  /**
   * Tracing on: the trace phase runs last before the sender (it adds the propagation headers). Appending
   * at the end leaves the index of every other phase alone, so calls in flight are not disturbed.
   */
  setTracing(on: boolean): void {
    if (on === this.tracing) return;
    this.tracing = on;
    this.pipeline = this.phaseSet.compile();
  }

  // ---- PhaseEnv and FeatureHost: what the phases and the features' io-thread halves get ----------------

  get passthru(): PassthruView { return this.init.passthru; }
  get graphql(): GraphqlView { return this.init.graphql; }
  get host(): FeatureHost { return this; }

  deployApis(apis: readonly ApiDefinition[]): void {
    this.deployed.deploy(apis);
  }

  /** New sequences: a new registry, swapped whole (calls in flight keep the one they hold). */
  deploySequences(set: SequenceSet): void {
    this.faults.registry = SequenceRegistry.compile(set, { logger: this.log, codecs: this.codecs, maskedHeaders: this.init.mediation.maskedHeaders });
    this.mediation.deploy(set);
    this.ws.deploySequences(this.faults.registry, set);
  }

  /** Once a second: calls past the global timeout get their 504. */
  private sweep(): void {
    const limit = this.init.globalTimeoutMs;
    if (limit <= 0 || this.inFlight.size === 0) return;
    const now = performance.now();
    for (const ctx of this.inFlight.toArray()) {
      if (now - ctx.startedAt > limit && ctx.phase !== CallStage.QUEUED) ctx.timedOut(limit);
    }
  }

  /**
   * Graceful stop: no new connections; calls in flight finish, up to the deadline. Responses from now on
   * close their connection, so a client busy on a keep-alive connection goes elsewhere after its current
   * call, and the stop ends in about the time of the longest call in flight; the connections left (idle
   * keep-alive ones) are closed when the last call has ended.
   */
  stop(deadlineMs: number): Promise<void> {
    this.draining = true;
    this.door.closeListeners();
    // Idle keep-alive connections close now; busy ones answer their current call with Connection: close.
    this.door.drain();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        clearInterval(this.sweeper);
        this.workerPool.stop();
        this.security.stop();
        this.pools.destroyAll();
        this.warnings.stop();
        // What is still open (a WebSocket client that has not answered our close frame, a connection whose
        // last response is leaving) closes a moment after the last call ended, so that its response has left.
        setTimeout(() => {
          this.door.destroyAll();
          resolve();
        }, STOP_FLUSH_MS);
      };
      // Runs once: the deadline's timer and the last session or call to end may both get here (a session that
      // the timer terminates reports its end too), and the security stop closes a pool that refuses a second close.
      let finished = false;
      const once = (): void => { if (!finished) { finished = true; done(); } };
      const timer = setTimeout(() => {
        if (this.inFlight.size) this.log.warn({ inFlight: this.inFlight.size }, 'graceful stop deadline passed; closing calls in flight');
        if (this.ws.sessionCount) this.log.warn({ sessions: this.ws.sessionCount }, 'graceful stop deadline passed; dropping WebSocket sessions');
        for (const ctx of this.inFlight.toArray()) { ctx.exchange?.abort(); if (!ctx.aborted && !ctx.finished) ctx.x.abort(); ctx.finish(); }
        this.ws.terminateAll();
        once();
      }, deadlineMs);
      const idle = (): boolean => this.inFlight.size === 0 && this.ws.sessionCount === 0;
      this.drained = once;
      // WebSocket sessions get 1001 now; the stop completes when they and the calls in flight are done.
      this.ws.closeAll(() => { if (idle()) once(); });
      if (idle()) once();
    });
  }

  get index(): number {
    return this.init.index;
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }
}

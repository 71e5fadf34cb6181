import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import type { Logger } from 'pino';
import type { Uws } from '../../transport/uws.js';
import { HeaderRules, type HeaderRulesSettings } from '../../transport/header-rules.js';
import { ProxyRules } from '../../transport/sender/proxy-rules.js';
import type { SenderProxyView, PassthruView, ListenerView } from '../../conf/views/passthru.js';
import type { ApiDefinition } from '../registry/types.js';
import { SenderPools, identityCheck, type SenderSettings } from './backend-target.js';
import { DeployedApis } from './deployed-apis.js';
import type { FaultRenderer } from './fault.js';
import { SequenceFaultRenderer } from './sequence-faults.js';
import { SequenceRegistry, type SequenceSet, type Codecs } from '../../mediation/index.js';
import { MessageContext, MessagePhase, Slot, type GatewayRuntime } from './message-context.js';
import { stepsOf, type GatewayPhase, type PhaseStep } from './phase.js';
import { buildPhases } from './phase-list.js';
import { SharedStateReceiver } from './shared-state.js';
import { GatewaySecurity } from '../security/gateway-security.js';
import { ApiMediation } from './api-mediation.js';
import { Admission, WorkerPool } from './worker-pool.js';
import { publishCall, hasCallSubscribers } from './call-events.js';
import { ThrottlePhase } from '../throttling/throttle-phase.js';
import { TracePhase } from './telemetry/trace.js';
import { WebSocketGateway, type WebSocketSettings } from '../websocket/websocket-gateway.js';
import { clientAddress } from '../../transport/client-address.js';
import { InFlightCalls } from './in-flight-calls.js';
import { RepeatedWarnings } from '../log/repeated-warnings.js';
import { performance } from 'node:perf_hooks';

export interface ListenerTlsFiles {
  readonly keyFile: string;
  readonly certFile: string;
  readonly passphrase: string;
  readonly caFile: string | undefined;
  readonly ciphers: string | undefined;
}

/** Everything an io thread needs to start: plain data, posted from the main thread. */
export interface GatewayThreadInit {
  readonly index: number;
  readonly threads: number;
  readonly passthru: PassthruView;
  readonly listeners: { readonly http: ListenerView; readonly https: ListenerView };
  readonly tls: ListenerTlsFiles | null;
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
}

const DIGITS = /^\d{1,15}$/;
/** At the end of a stop: time for the last responses to leave before every remaining socket is closed. */
const STOP_FLUSH_MS = 100;
let headerSink: string[] = [];
let contentLengths = 0;
let firstContentLength = '';
let contentLengthConflict = false;
let chunkedSeen = false;
const collectHeader = (name: string, value: string): void => {
  headerSink.push(name, value);
  if (name === 'content-length') {
    if (contentLengths++ === 0) firstContentLength = value;
    else if (value !== firstContentLength) contentLengthConflict = true;
  } else if (name === 'transfer-encoding') {
    chunkedSeen = true;
  }
};

/**
 * One io thread of the gateway: a uWebSockets.js app per pass-through port, the phases, the sender pools
 * and the bounded worker pool. Everything here belongs to this thread; shared state arrives by message.
 */
export class GatewayThread implements GatewayRuntime {
  /** The phases a message runs, replaced whole (never edited) when tracing is switched on or off. */
  phases: GatewayPhase[];
  phaseSteps: PhaseStep[];
  private readonly basePhases: GatewayPhase[];
  readonly state: SharedStateReceiver;
  readonly security: GatewaySecurity;
  readonly mediation: ApiMediation;
  readonly faults: SequenceFaultRenderer;
  readonly headerRules: HeaderRules;
  readonly workerPool: WorkerPool;
  readonly ioBufferSize: number;
  readonly pools: SenderPools;
  readonly deployed: DeployedApis;
  readonly ws: WebSocketGateway;
  readonly warnings: RepeatedWarnings;
  private readonly inFlight = new InFlightCalls<MessageContext>();
  private readonly listenSockets: us_listen_socket[] = [];
  private readonly apps: TemplatedApp[] = [];
  private readonly sweeper: NodeJS.Timeout;
  /** Stopping: every response closes its connection (Connection: close), so that busy clients let go. */
  draining = false;
  private drained: (() => void) | null = null;
  /** Limit of concurrent client requests on this thread (max_open_connections share), -1 none. */
  private readonly maxOpen: number;
  private acceptingPaused = false;
  requests = 0;

  constructor(
    readonly uws: Uws,
    readonly init: GatewayThreadInit,
    readonly log: Logger,
    private readonly codecs: Codecs,
    /** Sends a message to a main-thread extension (by name). */
    readonly notifyMain: (extension: string, payload: unknown) => void = () => {},
  ) {
    const p = init.passthru;
    this.warnings = new RepeatedWarnings(log);
    this.ioBufferSize = p.ioBufferSize;
    this.headerRules = new HeaderRules(init.headers);
    this.pools = new SenderPools(init.sender, new ProxyRules(init.proxies.http), new ProxyRules(init.proxies.https));
    this.deployed = new DeployedApis(this.pools, init.tokenApi?.origin ?? null, init.tokenApi?.ca);
    this.deployed.deploy(init.apis);
    this.faults = new SequenceFaultRenderer(SequenceRegistry.compile(init.sequences, { logger: log, codecs }));
    this.mediation = new ApiMediation(() => this.faults.registry, codecs, log);
    this.mediation.deploy(init.sequences);
    this.workerPool = new WorkerPool({ core: p.workerPoolCore, max: p.workerPoolMax, queueLength: p.workerPoolQueueLength }, log);
    this.state = new SharedStateReceiver(init.state);
    this.security = new GatewaySecurity(this.state, log, (payload) => this.notifyMain('security', payload));
    this.basePhases = buildPhases(this);
    this.phases = this.basePhases;
    this.phaseSteps = stepsOf(this.phases);
    const s = init.sender;
    this.ws = new WebSocketGateway(this, init.websocket, {
      ca: s.ca, checkServerIdentity: identityCheck(s.hostnameVerifier), clientKeyPem: s.clientKeyPem, clientCertPem: s.clientCertPem,
    }, this.faults.registry, init.sequences, s.connectTimeoutMs, this.basePhases.find((x): x is ThrottlePhase => x instanceof ThrottlePhase) ?? null);
    this.maxOpen = p.maxOpenConnections < 0 ? -1 : Math.max(1, Math.floor(p.maxOpenConnections / init.threads));
    this.sweeper = setInterval(() => this.sweep(), 1000);
    this.sweeper.unref();
  }

  /** Opens the listeners. Resolves with the ports that opened; rejects when a port cannot be bound. */
  async listen(): Promise<{ http?: number; https?: number }> {
    const out: { http?: number; https?: number } = {};
    const { http, https } = this.init.listeners;
    if (http.enabled) {
      const app = this.uws.App();
      this.route(app, false);
      out.http = await this.open(app, http, 'HTTP');
    }
    if (https.enabled && this.init.tls) {
      const t = this.init.tls;
      const app = this.uws.SSLApp({
        key_file_name: t.keyFile, cert_file_name: t.certFile, passphrase: t.passphrase,
        ...(t.caFile ? { ca_file_name: t.caFile } : {}),
        ...(t.ciphers ? { ssl_ciphers: t.ciphers } : {}),
      });
      this.route(app, true);
      out.https = await this.open(app, https, 'HTTPS');
    }
    return out;
  }

  private route(app: TemplatedApp, secure: boolean): void {
    const handler = secure ? this.onHttpsRequest : this.onHttpRequest;
    // Upgrade requests to WS APIs go to the WebSocket behavior; it yields every other upgrade to `any`.
    app.ws('/*', this.ws.behavior(secure));
    app.any('/*', handler);
    this.apps.push(app);
  }

  private open(app: TemplatedApp, l: ListenerView, what: string): Promise<number> {
    return new Promise((resolve, reject) => {
      app.listen(l.bindAddress, l.port, (sock) => {
        if (!sock) { reject(new Error(`cannot listen on ${l.bindAddress}:${l.port} (${what}): the port is in use or not allowed`)); return; }
        this.listenSockets.push(sock);
        resolve(this.uws.us_socket_local_port(sock as unknown as Parameters<Uws['us_socket_local_port']>[0]));
      });
    });
  }

  private readonly onHttpRequest = (res: HttpResponse, req: HttpRequest): void => { this.accept(res, req, false); };
  private readonly onHttpsRequest = (res: HttpResponse, req: HttpRequest): void => { this.accept(res, req, true); };

  private accept(res: HttpResponse, req: HttpRequest, secure: boolean): void {
    const ctx = new MessageContext(this, res);
    ctx.secure = secure;
    ctx.method = req.getCaseSensitiveMethod();
    ctx.path = req.getUrl();
    ctx.query = req.getQuery() ?? '';
    headerSink = ctx.reqHeaders;
    contentLengths = 0;
    contentLengthConflict = false;
    chunkedSeen = false;
    req.forEach(collectHeader);
    res.onAborted(ctx.onClientAborted);
    ctx.clientIp = clientAddress(res);
    if (chunkedSeen) ctx.chunked = true;
    else if (contentLengths > 0) ctx.contentLength = Number(firstContentLength);
    this.onMessageStart(ctx);
    if (contentLengthConflict || (chunkedSeen && contentLengths > 0) || (contentLengths > 0 && !DIGITS.test(firstContentLength))) {
      // uWS read the body by one of them; a backend might read it by the other (request smuggling).
      ctx.fault({ code: 400, status: 400, message: 'Bad Request', description: 'Invalid or conflicting Content-Length / Transfer-Encoding headers', sequence: 'fault' });
      return;
    }
    if (ctx.hasBody) res.onData(ctx.dataHandler());
    this.admit(ctx);
  }

  /**
   * A started message (onMessageStart) whose request facts are set, an HTTP call or a WebSocket handshake:
   * a worker pool slot, then the phases. A full queue answers 503.
   */
  admit(ctx: MessageContext): void {
    const a = this.workerPool.admit(ctx);
    if (a === Admission.ADMITTED) { ctx.onSlot(); return; }
    if (a === Admission.QUEUED) { ctx.slot = Slot.WAITING; ctx.phase = MessagePhase.QUEUED; return; }
    this.warnings.warn('worker pool full', { path: ctx.path, max: this.workerPool.settings.max, queue: this.workerPool.settings.queueLength },
      'worker pool queue full: message dropped');
    ctx.fault({ code: 503, status: 503, message: 'Service Unavailable', description: 'The gateway is at capacity; retry later', sequence: 'fault' });
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
    for (const s of this.listenSockets.splice(0)) this.uws.us_listen_socket_close(s);
  }

  private resumeAccepting(): void {
    this.acceptingPaused = false;
    if (this.draining) return;
    this.log.info('accepting connections again');
    const { http, https } = this.init.listeners;
    let i = 0;
    if (http.enabled) void this.open(this.apps[i++]!, http, 'HTTP').catch((e: Error) => this.log.error(e.message));
    if (https.enabled && this.init.tls) void this.open(this.apps[i]!, https, 'HTTPS').catch((e: Error) => this.log.error(e.message));
  }

  /**
   * Tracing on: the trace phase runs last before the sender (it adds the propagation headers). Appending
   * at the end leaves the index of every other phase alone, so calls in flight are not disturbed.
   */
  setTracing(on: boolean): void {
    const has = this.phases.length > this.basePhases.length;
    if (on && !has) this.phases = [...this.basePhases, new TracePhase()];
    else if (!on && has) this.phases = this.basePhases;
    else return;
    this.phaseSteps = stepsOf(this.phases);
  }

  deployApis(apis: readonly ApiDefinition[]): void {
    this.deployed.deploy(apis);
  }

  /** New sequences: a new registry, swapped whole (calls in flight keep the one they hold). */
  deploySequences(set: SequenceSet): void {
    this.faults.registry = SequenceRegistry.compile(set, { logger: this.log, codecs: this.codecs });
    this.mediation.deploy(set);
    this.ws.deploySequences(this.faults.registry, set);
  }

  /** Once a second: calls past the global timeout get their 504. */
  private sweep(): void {
    const limit = this.init.globalTimeoutMs;
    if (limit <= 0 || this.inFlight.size === 0) return;
    const now = performance.now();
    for (const ctx of this.inFlight.toArray()) {
      if (now - ctx.startedAt > limit && ctx.phase !== MessagePhase.QUEUED) ctx.timedOut(limit);
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
    for (const s of this.listenSockets.splice(0)) this.uws.us_listen_socket_close(s);
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        clearInterval(this.sweeper);
        this.workerPool.stop();
        this.security.stop();
        this.pools.destroyAll();
        this.warnings.stop();
        // Sockets uWS still holds (a WebSocket client that has not answered our close frame, an idle
        // keep-alive connection) would abort the process when the thread's loop closes: close them all,
        // a moment after the last call ended so that its response, written inside a cork, has left.
        setTimeout(() => {
          for (const app of this.apps) (app as TemplatedApp & { close?: () => void }).close?.();
          resolve();
        }, STOP_FLUSH_MS);
      };
      const timer = setTimeout(() => {
        if (this.inFlight.size) this.log.warn({ inFlight: this.inFlight.size }, 'graceful stop deadline passed; closing calls in flight');
        if (this.ws.sessionCount) this.log.warn({ sessions: this.ws.sessionCount }, 'graceful stop deadline passed; dropping WebSocket sessions');
        for (const ctx of this.inFlight.toArray()) { ctx.exchange?.abort(); if (!ctx.aborted && !ctx.finished) ctx.res.close(); ctx.finish(); }
        this.ws.terminateAll();
        done();
      }, deadlineMs);
      const idle = (): boolean => this.inFlight.size === 0 && this.ws.sessionCount === 0;
      let finished = false;
      const once = (): void => { if (!finished) { finished = true; done(); } };
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

import diagnostics from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import type WebSocket from 'ws';
import { WebSocketServer } from 'ws';
import type { Logger } from 'pino';
import type { Call, TerminalStep } from '../kernel/call.js';
import type { RepeatedWarnings } from '../log/repeated-warnings.js';
import type { DeployedApis } from '../routing/deployed-apis.js';
import type { SharedState } from '../kernel/shared-state.js';
import type { GatewaySecurity } from '../security/gateway-security.js';
import type { HeaderRules } from '../../transport/header-rules.js';
import type { WebSocketView } from '../../conf/views/websocket.js';
import type { SequenceRegistry, SequenceSet, CallFacts } from '../../mediation/index.js';
import { WsRelay, type RelayFilter, type RelayListener } from '../../transport/websocket/relay.js';
import type { ClientExchange } from '../../transport/front-door/client-exchange.js';
import type { BackendTls } from '../../transport/websocket/backend-socket.js';
import { CloseCode } from '../../transport/websocket/close-codes.js';
import { Handshake } from './handshake.js';
import { SharedMessageThrottle } from './shared-message-throttle.js';
import type { ThrottlePhase } from '../throttling/throttle-phase.js';
import { LocalMessageThrottle, WS_POLICY_STATE, type MessagePolicies, type MessageThrottle } from './message-throttle.js';
import { DispatchAction, WsDispatch } from './ws-dispatch.js';
import { WsSession } from './ws-session.js';
import { joinMember } from '../../mediation/members.js';

/** [sluice.websocket] and [transport.ws(s)] settings, with the wss trust store loaded (PEM): posted to io threads. */
export interface WebSocketSettings extends WebSocketView {
  /** CAs for wss:// backends from [transport.wss] sender.trust_store; undefined: the pass-through sender's. */
  readonly wssCa: readonly string[] | undefined;
}

/** What the WebSocket side needs from its io thread (GatewayThread). */
export interface WebSocketHost {
  readonly log: Logger;
  readonly warnings: RepeatedWarnings;
  readonly deployed: DeployedApis;
  readonly security: GatewaySecurity;
  readonly state: SharedState;
  readonly headerRules: HeaderRules;
  /** A call for the handshake's exchange, ending in `terminal` instead of the sender: started, not yet admitted. */
  startCall(x: ClientExchange, terminal: TerminalStep): Call;
  /** Admits a started call as an HTTP request is: worker pool admission, then the phases, then its terminal step. */
  admit(call: Call): void;
  /** An exchange answered as an HTTP call (an upgrade request to a path that is not a WebSocket API). */
  onRequest(x: ClientExchange): void;
}

/** The upgrade request as ws reads it (method, url, headers): only what its handshake looks at. */
interface UpgradeRequest { method: string; url: string; headers: Record<string, string>; sluiceExtra: readonly string[] }

export type Relay = WsRelay<WsSession>;

/** Sessions opening and closing, for metrics and tests; nothing is published when nobody listens. */
export const wsSessionChannel = diagnostics.channel('sluice:websocket:session');
export interface WsSessionEvent {
  readonly event: 'open' | 'close';
  readonly relay: Relay;
}

const ACCESS_TOKEN = 'access_token';

/**
 * The WebSocket APIs of one io thread: the uWS behavior on the pass-through ports (plain and TLS), the
 * handshake through the gateway's phases (handshake.ts), the open sessions and what each message passes
 * on its way (token still valid, throttle, dispatch sequences). The relay itself is transport/websocket/.
 */
export class WebSocketGateway implements RelayFilter<WsSession>, RelayListener<WsSession> {
  private readonly sessions = new Set<Relay>();
  readonly throttle: MessageThrottle;
  private readonly localThrottle: LocalMessageThrottle;
  private dispatch: WsDispatch;
  readonly backendTls: BackendTls;
  private readonly sweeper: NodeJS.Timeout;
  private onEmpty: (() => void) | null = null;
  /** Completes client handshakes (RFC 6455 §4.2.2) on sockets the front door hands over; never listens. */
  private readonly server: WebSocketServer;

  constructor(
    readonly host: WebSocketHost,
    readonly settings: WebSocketSettings,
    senderTls: BackendTls,
    registry: SequenceRegistry,
    sequences: SequenceSet,
    readonly connectTimeoutMs: number,
    throttlePhase: ThrottlePhase | null = null,
  ) {
    this.backendTls = settings.wssCa !== undefined ? { ...senderTls, ca: settings.wssCa } : senderTls;
    this.localThrottle = new LocalMessageThrottle();
    // With the throttling engine running, messages count in its shared counters (one limit for all io threads).
    this.throttle = throttlePhase !== null ? new SharedMessageThrottle(throttlePhase) : this.localThrottle;
    host.state.on(WS_POLICY_STATE, (v) => this.localThrottle.setPolicies(v as MessagePolicies));
    this.dispatch = this.compileDispatch(registry, sequences);
    this.sweeper = setInterval(() => this.sweep(), 1000);
    this.sweeper.unref();
    // `closeTimeout` is in ws 8.23's options; @types/ws 8.18 does not list it yet.
    this.server = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      perMessageDeflate: false,
      maxPayload: settings.maxMessageSize,
      // A client that does not answer our close frame is dropped after this long ([sluice.websocket] close_timeout).
      closeTimeout: settings.closeTimeoutMs,
      // The client gets the sub-protocol the backend chose (set on the request by completeUpgrade).
      handleProtocols: (_offered: Set<string>, req: IncomingMessage) => (req as unknown as { sluiceProtocol: string }).sluiceProtocol || false,
    } as ConstructorParameters<typeof WebSocketServer>[0]);
    // Headers the phases added (CORS...) go on the 101 answer.
    this.server.on('headers', (headers: string[], req: IncomingMessage) => {
      const extra = (req as unknown as UpgradeRequest).sluiceExtra;
      for (let i = 0; i < extra.length; i += 2) headers.push(`${extra[i]}: ${extra[i + 1]}`);
    });
  }

  private compileDispatch(registry: SequenceRegistry, set: SequenceSet): WsDispatch {
    return new WsDispatch(registry, set, this.settings.ws, this.settings.wss);
  }

  /** New sequences deployed: open sessions use them from their next message. */
  deploySequences(registry: SequenceRegistry, set: SequenceSet): void {
    this.dispatch = this.compileDispatch(registry, set);
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  // ---- the upgrade ----------------------------------------------------------------------------------

  /**
   * An upgrade request from the front door. Paths of WS APIs start a handshake through the phases; any
   * other path is answered as an HTTP call (a `404` from `main`, or an HTTP API that ignores the Upgrade
   * header), and the connection closes after it.
   */
  upgrade(x: ClientExchange): void {
    const match = this.host.deployed.current.router.findApi(x.head.path);
    if (match === null || match.api.def.type !== 'WS') {
      x.head.keepAlive = false;
      this.host.onRequest(x);
      return;
    }
    const hs = new Handshake(this, x, x.head.header('sec-websocket-protocol') ?? '');
    const call = this.host.startCall(x, hs);
    hs.bind(call);
    call.query = this.takeQueryToken(call, x.head.query);
    this.host.admit(call);
  }

  /**
   * The backend accepted: the client's handshake is completed on the socket the front door hands over (ws
   * writes the 101 with Sec-WebSocket-Accept), and the relay takes the client.
   */
  completeUpgrade(x: ClientExchange, ctx: Call, relay: Relay, protocol: string): void {
    const headers: Record<string, string> = {};
    const h = x.head.headers;
    // The client's names: own members only (ws reads this as the request's headers).
    for (let i = 0; i < h.length; i += 2) joinMember(headers, h[i]!, h[i + 1]!, ', ');
    const req: UpgradeRequest & { sluiceProtocol: string } = { method: 'GET', url: x.head.target, headers, sluiceExtra: ctx.extraResponseHeaders, sluiceProtocol: protocol };
    const rest = x.conn.upgradeRest;
    const socket = x.conn.upgrade();
    let upgraded = false;
    this.server.handleUpgrade(req as unknown as IncomingMessage, socket, Buffer.alloc(0), (client) => {
      upgraded = true;
      relay.attachClient(client);
      if (rest !== null && rest.length > 0) socket.emit('data', rest);
    });
    // ws refused the request (a bad key or version): it answered 400 and closed the socket itself.
    if (!upgraded) relay.close(CloseCode.PROTOCOL_ERROR, 'Bad handshake', CloseCode.GOING_AWAY, 'Client handshake failed');
  }

  /**
   * Browsers cannot set headers on a WebSocket: the token may come as `?access_token=`. It is taken out of
   * the query (never forwarded, never logged) and, when the request has no auth header, put there as a
   * Bearer token. The header wins when both are present.
   */
  private takeQueryToken(ctx: Call, query: string): string {
    if (query === '' || !query.includes(ACCESS_TOKEN)) return query;
    const params = new URLSearchParams(query);
    const token = params.get(ACCESS_TOKEN);
    if (token === null) return query;
    params.delete(ACCESS_TOKEN);
    if (this.settings.queryToken) {
      const header = this.host.security.settings?.authHeader ?? 'authorization';
      if (ctx.header(header) === undefined && token !== '') ctx.reqHeaders.push(header, `Bearer ${token}`);
    }
    return params.toString();
  }

  // ---- sessions ----------------------------------------------------------------------------------------

  /** The backend accepted the handshake: the session's relay, before the client is upgraded. */
  newRelay(ctx: Call, backend: WebSocket): Relay {
    const api = ctx.api!.def;
    const auth = ctx.auth;
    const facts: CallFacts = {
      apiName: api.name, apiVersion: api.version, apiContext: api.context,
      ...(ctx.resource ? { resource: ctx.resource.def.uriTemplate } : {}),
      ...(auth ? {
        applicationName: auth.application, applicationOwner: auth.subscriber, consumerKey: auth.consumerKey,
        userId: auth.user, keyType: auth.keyType, subscriptionTier: auth.tier,
      } : {}),
      clientIp: ctx.clientIp, method: ctx.method, path: ctx.query ? `${ctx.path}?${ctx.query}` : ctx.path,
    };
    const session = new WsSession(api, auth, facts, ctx.target!.tls, auth ? this.throttle.forSession(auth, api) : null, ctx.clientIp, ctx.path);
    const relay = new WsRelay(session, backend, this.settings, this, this);
    this.sessions.add(relay);
    if (wsSessionChannel.hasSubscribers) wsSessionChannel.publish({ event: 'open', relay } satisfies WsSessionEvent);
    this.host.log.debug({ session: session.id, api: api.id, path: ctx.path, application: auth?.application }, 'WebSocket session open');
    return relay;
  }

  onRelayClosed(relay: Relay): void {
    this.sessions.delete(relay);
    const s = relay.meta;
    this.host.log.debug({
      session: s.id, api: s.api.id, cause: relay.cause, clientCode: relay.clientCloseCode, backendCode: relay.backendCloseCode,
      inMessages: relay.inMessages, outMessages: relay.outMessages, inBytes: relay.inBytes, outBytes: relay.outBytes,
      ms: Date.now() - relay.openedAt, ...(relay.backendError ? { backendError: relay.backendError } : {}),
      ...(s.throttledDrops ? { throttledDrops: s.throttledDrops } : {}),
    }, 'WebSocket session closed');
    if (wsSessionChannel.hasSubscribers) wsSessionChannel.publish({ event: 'close', relay } satisfies WsSessionEvent);
    if (this.sessions.size === 0 && this.onEmpty !== null) this.onEmpty();
  }

  // ---- RelayFilter: each message on its way -------------------------------------------------------------

  inbound(relay: Relay, data: Buffer, isBinary: boolean): boolean {
    const s = relay.meta;
    const auth = s.auth;
    if (auth !== null) {
      const now = Date.now();
      if (!this.tokenStillValid(relay, now)) return false;
      const t = s.throttle;
      if (t !== null) {
        const v = t.admit(now);
        if (!v.allowed) {
          if (this.settings.throttleAction === 'drop') {
            if (s.throttledDrops++ === 0) this.host.log.info({ session: s.id, api: s.api.id, application: auth.application, code: v.code }, 'WebSocket messages over the throttling limit are dropped');
            return false;
          }
          const retry = Math.max(1, Math.ceil(v.retryAfterMs / 1000));
          this.host.log.info({ session: s.id, api: s.api.id, application: auth.application, code: v.code }, 'WebSocket session throttled out: closed');
          relay.close(CloseCode.THROTTLED, `${v.message} (${v.code}). Retry after ${retry}s`, CloseCode.GOING_AWAY, 'Client throttled out');
          return false;
        }
      }
    }
    const d = this.dispatch;
    if (d.inbound === null) return true;
    const r = d.run(d.inbound, true, s.secureBackend, s.facts, data, isBinary);
    switch (r.action) {
      case DispatchAction.PASS: return true;
      case DispatchAction.REPLACE: relay.toBackend(r.body, r.binary); return false;
      case DispatchAction.RESPOND: relay.toClient(r.body, r.binary); return false;
      default: this.dropped(relay, r.error, r.faultBody, r.faultBinary); return false;
    }
  }

  outbound(relay: Relay, data: Buffer, isBinary: boolean): boolean {
    const s = relay.meta;
    const d = this.dispatch;
    const seqs = s.secureBackend ? d.outbound.wss : d.outbound.ws;
    if (seqs.length === 0) return true;
    const r = d.run(seqs, false, s.secureBackend, s.facts, data, isBinary);
    switch (r.action) {
      case DispatchAction.PASS: return true;
      case DispatchAction.REPLACE: relay.toClient(r.body, r.binary); return false;
      default: this.dropped(relay, r.error, r.faultBody, r.faultBinary); return false;
    }
  }

  private dropped(relay: Relay, error: string, faultBody: Buffer | null, faultBinary: boolean): void {
    const s = relay.meta;
    s.mediationDrops++;
    if (error !== '') this.host.warnings.warn(`ws dispatch ${s.api.id}`, { session: s.id, api: s.api.id, err: error }, 'a WebSocket dispatch sequence failed: message dropped');
    if (faultBody !== null) relay.toClient(faultBody, faultBinary);
  }

  /** A token that expired or was revoked since the handshake ends the session (1008). */
  private tokenStillValid(relay: Relay, now: number): boolean {
    const auth = relay.meta.auth!;
    const skewMs = (this.host.security.settings?.clockSkewSec ?? 0) * 1000;
    let why = '';
    if (auth.expiresAt > 0 && auth.expiresAt <= now - skewMs) why = 'The access token has expired';
    else if (this.host.security.isRevoked(auth.tokenId)) why = 'The access token has been revoked';
    if (why === '') return true;
    this.host.log.info({ session: relay.meta.id, api: relay.meta.api.id, application: auth.application }, `WebSocket session closed: ${why.toLowerCase()}`);
    relay.close(CloseCode.POLICY_VIOLATION, why, CloseCode.GOING_AWAY, 'Client credentials no longer valid');
    return false;
  }

  /**
   * Once a second: sessions that only receive learn about an expired or revoked token too, and idle clients
   * get a ping, then are dropped when they stay silent ([sluice.websocket] idle_timeout).
   */
  private sweep(): void {
    if (this.sessions.size === 0) return;
    const now = Date.now();
    const idleMs = this.settings.idleTimeoutSec * 1000;
    for (const r of this.sessions) {
      if (r.closed) continue;
      if (r.meta.auth !== null && !this.tokenStillValid(r, now)) continue;
      if (idleMs > 0) r.pingIdle(now, idleMs);
    }
  }

  // ---- stop ---------------------------------------------------------------------------------------------

  /** Graceful stop: every session gets 1001; `then` runs once all are closed (at once when there are none). */
  closeAll(then: () => void): void {
    clearInterval(this.sweeper);
    this.onEmpty = then;
    if (this.sessions.size === 0) { then(); return; }
    for (const r of [...this.sessions]) r.close(CloseCode.GOING_AWAY, 'The gateway is shutting down', CloseCode.GOING_AWAY, 'The gateway is shutting down');
  }

  /** Past the stop deadline: drop what is left without close frames. */
  terminateAll(): void {
    for (const r of [...this.sessions]) r.terminate();
  }
}

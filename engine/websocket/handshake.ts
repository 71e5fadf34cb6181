import type WebSocket from 'ws';
import type { Call, TerminalStep } from '../kernel/call.js';
import type { BackendTarget } from '../routing/backend-target.js';
import { openBackend, type BackendOpenHandler, type PendingBackend } from '../../transport/websocket/backend-socket.js';
import type { BackendTransportError } from '../../transport/transport-errors.js';
import type { ClientExchange } from '../../transport/front-door/client-exchange.js';
import { GatewayError } from '../../errors/gateway.js';
import { FaultSequence } from '../../errors/fault-sequences.js';
import { TransportError } from '../../errors/transport.js';
import type { Logger } from 'pino';
import type { WebSocketView } from '../../conf/views/websocket.js';
import type { HeaderRules } from '../../transport/header-rules.js';
import type { BackendTls } from '../../transport/websocket/backend-socket.js';
import type { WsRelay } from '../../transport/websocket/relay.js';
import type { WsSession } from './ws-session.js';
import { performance } from 'node:perf_hooks';
import { firstUnsafeField } from '../../transport/field-values.js';
import { joinMember, setMember } from '../../mediation/members.js';

/** Handshake headers ws writes itself, and hop-by-hop ones, never forwarded. */
const OWN_HEADERS = new Set(['sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions', 'sec-websocket-protocol']);

/** What a handshake needs from the WebSocket side of its io thread (websocket-gateway.ts provides it). */
export interface HandshakeHost {
  readonly settings: WebSocketView;
  readonly backendTls: BackendTls;
  readonly connectTimeoutMs: number;
  readonly host: { readonly headerRules: HeaderRules; readonly log: Logger };
  /** The backend accepted: the session's relay, before the client is upgraded. */
  newRelay(ctx: Call, backend: WebSocket): WsRelay<WsSession>;
  /** Completes the client's handshake on its socket and hands the client to the relay. */
  completeUpgrade(x: ClientExchange, ctx: Call, relay: WsRelay<WsSession>, protocol: string): void;
}

/**
 * One WebSocket handshake: the client's upgrade request runs the gateway's phases in a Call
 * (resolve API, CORS, authenticate, authorize, throttle, backend JWT...) exactly as an HTTP call; this is
 * the context's terminal step in place of the HTTP sender. It opens the backend WebSocket and, once the
 * backend accepted, upgrades the client with the sub-protocol the backend chose. A failure before the
 * upgrade is an HTTP answer: a fault through the fault sequences (101503 backend unreachable...), or the
 * backend's own refusal passed through.
 */
export class Handshake implements TerminalStep, BackendOpenHandler {
  private pending: PendingBackend | null = null;
  private ctx: Call | null = null;

  constructor(
    private readonly gateway: HandshakeHost,
    /** The client's exchange: its socket is upgraded once the backend accepted. */
    private readonly x: ClientExchange,
    private readonly secWebSocketProtocol: string,
  ) {}

  /** The client went away during the handshake (the context calls this before it finishes). */
  abort(): void {
    this.pending?.abort();
    this.pending = null;
  }

  bind(ctx: Call): void {
    this.ctx = ctx;
  }

  dispatch(ctx: Call): void {
    // ws writes the 101's headers as they are: what the phases added for the client is checked first, as
    // every HTTP answer's is (engine/gateway/call-answers.ts), before the backend is even asked.
    if (firstUnsafeField(ctx.extraResponseHeaders) >= 0) {
      ctx.raise(GatewayError.LOCAL_ANSWER_UNWRITABLE, { sequence: ctx.api?.def.faultSequence ?? FaultSequence.FAULT });
      return;
    }
    const target = ctx.target;
    if (target === null) {
      ctx.raise(GatewayError.NO_ENDPOINT, { sequence: ctx.api?.def.faultSequence ?? FaultSequence.FAULT });
      return;
    }
    const secure = target.tls;
    const g = this.gateway;
    if (!(secure ? g.settings.wss.enabled : g.settings.ws.enabled)) {
      ctx.raise(TransportError.CONNECTION_FAILED, {
        description: `The ${secure ? 'wss' : 'ws'} sender is disabled`, sequence: ctx.api?.def.faultSequence ?? FaultSequence.FAULT,
      });
      return;
    }
    ctx.backendStartedAt = performance.now();
    this.pending = openBackend({
      url: backendUrl(target, ctx.resourcePath, ctx.query),
      headers: this.backendHeaders(ctx),
      protocols: this.secWebSocketProtocol === '' ? [] : this.secWebSocketProtocol.split(',').map((p) => p.trim()).filter(Boolean),
      handshakeTimeoutMs: g.connectTimeoutMs,
      maxPayload: g.settings.maxMessageSize,
      closeTimeoutMs: g.settings.closeTimeoutMs,
      tls: secure ? g.backendTls : null,
    }, this);
  }

  /** The client's end-to-end headers, what the phases added (X-JWT-Assertion), and X-Forwarded-*. */
  private backendHeaders(ctx: Call): Record<string, string> {
    const out: Record<string, string> = {};
    const rules = this.gateway.host.headerRules;
    const removed = ctx.removedBackendHeaders;
    const h = ctx.reqHeaders;
    let xff: string | undefined;
    let originalHost = '';
    for (let i = 0; i < h.length; i += 2) {
      const name = h[i]!;
      const value = h[i + 1]!;
      if (name === 'host') { originalHost = value; continue; }
      if (OWN_HEADERS.has(name) || rules.dropsRequestHeader(name) || removed.includes(name)) continue;
      if (name === 'x-forwarded-for') { xff = xff === undefined ? value : `${xff}, ${value}`; continue; }
      // The client's names: own members only (a header named constructor or __proto__ is a header).
      joinMember(out, name, value, name === 'cookie' ? '; ' : ', ');
    }
    const extra = ctx.extraBackendHeaders;
    for (let i = 0; i < extra.length; i += 2) setMember(out, extra[i]!.toLowerCase(), extra[i + 1]!);
    out['x-forwarded-for'] = xff === undefined ? ctx.clientIp : `${xff}, ${ctx.clientIp}`;
    out['x-forwarded-proto'] ??= ctx.secure ? 'https' : 'http';
    if (originalHost !== '') out['x-forwarded-host'] ??= originalHost;
    return out;
  }

  onBackendOpen(ws: WebSocket): void {
    this.pending = null;
    const ctx = this.ctx!;
    if (ctx.finished || ctx.aborted) {
      // The client left, or the call was answered meanwhile (global timeout): nobody to relay for.
      ws.terminate();
      return;
    }
    ctx.backendLatencyMs = performance.now() - ctx.backendStartedAt;
    const relay = this.gateway.newRelay(ctx, ws);
    ctx.respStatus = 101;
    ctx.responseStarted = true;
    this.gateway.completeUpgrade(this.x, ctx, relay, ws.protocol);
    ctx.finish();
  }

  onBackendRefused(status: number, headers: readonly (readonly [string, string])[], body: Buffer): void {
    this.pending = null;
    const ctx = this.ctx!;
    if (ctx.finished) return;
    ctx.backendLatencyMs = performance.now() - ctx.backendStartedAt;
    this.gateway.host.log.info({ api: ctx.api?.def.id, path: ctx.path, status }, 'the WebSocket backend refused the upgrade; its answer is passed to the client');
    ctx.respond(status, headers, body.length > 0 ? body : null);
  }

  onBackendFailed(err: BackendTransportError): void {
    this.pending = null;
    const ctx = this.ctx!;
    if (ctx.finished) return;
    ctx.onError(err);
  }
}

/** The backend URL for a handshake: the endpoint, then the resource path and query, as for HTTP calls. */
export function backendUrl(target: BackendTarget, resourcePath: string, query: string): string {
  const u = new URL(target.url);
  const base = target.basePath;
  const resource = resourcePath === '/' && base !== '' ? '' : resourcePath;
  const scheme = u.protocol === 'https:' || u.protocol === 'wss:' ? 'wss:' : 'ws:';
  return `${scheme}//${u.host}${base}${resource === '' && base === '' ? '/' : resource}${query ? '?' + query : ''}`;
}

import type WebSocket from 'ws';
import type { MessageContext, TerminalStep } from '../gateway/message-context.js';
import type { BackendTarget } from '../gateway/backend-target.js';
import { openBackend, type BackendOpenHandler, type PendingBackend } from '../../transport/websocket/backend-socket.js';
import { TransportErrorCode, TRANSPORT_ERRORS, type BackendTransportError } from '../../transport/transport-errors.js';
import type { WebSocketGateway } from './websocket-gateway.js';
import { performance } from 'node:perf_hooks';

/** Handshake headers ws writes itself, and hop-by-hop ones, never forwarded. */
const OWN_HEADERS = new Set(['sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions', 'sec-websocket-protocol']);

/**
 * One WebSocket handshake: the client's upgrade request runs the gateway's phases in a MessageContext
 * (resolve API, CORS, authenticate, authorize, throttle, backend JWT...) exactly as an HTTP call; this is
 * the context's terminal step in place of the HTTP sender. It opens the backend WebSocket and, once the
 * backend accepted, upgrades the client with the sub-protocol the backend chose. A failure before the
 * upgrade is an HTTP answer: a fault through the fault sequences (101503 backend unreachable...), or the
 * backend's own refusal passed through.
 */
export class Handshake implements TerminalStep, BackendOpenHandler {
  private pending: PendingBackend | null = null;
  private ctx: MessageContext | null = null;

  constructor(
    private readonly gateway: WebSocketGateway,
    private readonly secWebSocketProtocol: string,
  ) {}

  /** The client went away during the handshake (the context calls this before it finishes). */
  abort(): void {
    this.pending?.abort();
    this.pending = null;
  }

  bind(ctx: MessageContext): void {
    this.ctx = ctx;
  }

  dispatch(ctx: MessageContext): void {
    const target = ctx.target;
    if (target === null) {
      ctx.fault({ code: TransportErrorCode.CONNECTION_FAILED, status: 503, message: 'Runtime Error', description: 'No endpoint is configured for this API', sequence: ctx.api?.def.faultSequence ?? 'fault' });
      return;
    }
    const secure = target.tls;
    const g = this.gateway;
    if (!(secure ? g.settings.wss.enabled : g.settings.ws.enabled)) {
      ctx.fault({
        code: TransportErrorCode.CONNECTION_FAILED, status: 503, message: TRANSPORT_ERRORS[TransportErrorCode.CONNECTION_FAILED]!.detail,
        description: `The ${secure ? 'wss' : 'ws'} sender is disabled`, sequence: ctx.api?.def.faultSequence ?? 'fault',
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
  private backendHeaders(ctx: MessageContext): Record<string, string> {
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
      const prev = out[name];
      out[name] = prev === undefined ? value : `${prev}${name === 'cookie' ? '; ' : ', '}${value}`;
    }
    const extra = ctx.extraBackendHeaders;
    for (let i = 0; i < extra.length; i += 2) out[extra[i]!.toLowerCase()] = extra[i + 1]!;
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
    this.gateway.completeUpgrade(ctx, relay, ws.protocol);
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

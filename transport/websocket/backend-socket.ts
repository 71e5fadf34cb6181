import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import type tls from 'node:tls';
import type WebSocket from 'ws';
import { ProtocolState } from '../protocol-state.js';
import { BackendTransportError, TransportErrorCode, baseForSocketError } from '../transport-errors.js';

/** TLS settings of wss:// backends: the trust store of [transport.wss] (or the pass-through sender's). */
export interface BackendTls {
  /** Trusted CA certificates, PEM; undefined: the system's. */
  readonly ca: readonly string[] | undefined;
  readonly checkServerIdentity: tls.ConnectionOptions['checkServerIdentity'];
  readonly clientKeyPem: string | undefined;
  readonly clientCertPem: string | undefined;
}

export interface BackendSocketOptions {
  /** ws:// or wss:// (http:// and https:// are taken as ws:// and wss://), with the path and query to open. */
  readonly url: string;
  /** End-to-end request headers for the backend (the WebSocket handshake headers are ws' own). */
  readonly headers: Record<string, string>;
  /** Sub-protocols the client offered (Sec-WebSocket-Protocol), in order. */
  readonly protocols: readonly string[];
  readonly handshakeTimeoutMs: number;
  readonly maxPayload: number;
  /** How long to wait for the backend's close frame after sending ours. */
  readonly closeTimeoutMs: number;
  readonly tls: BackendTls | null;
}

/** What the handshake with the backend came to. Exactly one of these is called, once. */
export interface BackendOpenHandler {
  /** The backend accepted: the socket is open (ws.protocol is the sub-protocol it chose). */
  onBackendOpen(ws: WebSocket): void;
  /** The backend answered the upgrade with an HTTP response instead (its status, headers and body, up to 64 KB). */
  onBackendRefused(status: number, headers: readonly (readonly [string, string])[], body: Buffer): void;
  /** No WebSocket could be opened: connection refused, timed out, TLS, a broken handshake. */
  onBackendFailed(err: BackendTransportError): void;
}

/** A backend handshake in progress; `abort` drops it (the client went away). */
export interface PendingBackend {
  abort(): void;
}

const REFUSAL_BODY_LIMIT = 64 * 1024;
/** Response headers of a refused upgrade that are not passed on (hop-by-hop and framing). */
const REFUSAL_DROP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade', 'date', 'proxy-connection', 'te', 'trailer']);

const POOL_SIZE = 8192;
const maskPool = Buffer.alloc(POOL_SIZE);
let maskPointer = POOL_SIZE;

/**
 * Client frames are masked. ws masks a caller's buffer by copying it into the frame it writes (so the
 * relay may hand it a buffer it does not own) - except with an all-zero mask, where it would keep the caller's buffer. This mask generator
 * never yields zero, so a frame never holds on to the caller's memory.
 */
function nonZeroMask(mask: Buffer): void {
  if (maskPointer === POOL_SIZE) {
    crypto.randomFillSync(maskPool);
    maskPointer = 0;
  }
  mask[0] = maskPool[maskPointer++]!;
  mask[1] = maskPool[maskPointer++]!;
  mask[2] = maskPool[maskPointer++]!;
  mask[3] = maskPool[maskPointer++]!;
  if ((mask[0] | mask[1] | mask[2] | mask[3]) === 0) mask[0] = 1;
}

let WebSocketClass: typeof WebSocket | null = null;

/** ws is loaded on the first WebSocket handshake: a gateway without WS APIs starts without it. */
function wsClass(): typeof WebSocket {
  WebSocketClass ??= createRequire(import.meta.url)('ws') as typeof WebSocket;
  return WebSocketClass;
}

function wsUrl(url: string): string {
  if (url.startsWith('http://')) return 'ws://' + url.slice(7);
  if (url.startsWith('https://')) return 'wss://' + url.slice(8);
  return url;
}

/**
 * Opens the backend side of a WebSocket session with the `ws` client (no compression, no redirects) and
 * reports how it went. Connection-level failures carry the seed's transport codes: a refused or
 * unreachable backend is 101503 (REQUEST_READY), a handshake that does not finish in time 101508, a
 * broken handshake answer 101506 + RESPONSE_HEAD.
 */
export function openBackend(o: BackendSocketOptions, handler: BackendOpenHandler): PendingBackend {
  const t = o.tls;
  const WS = wsClass();
  const ws = new WS(wsUrl(o.url), [...o.protocols], {
    headers: o.headers,
    handshakeTimeout: o.handshakeTimeoutMs,
    maxPayload: o.maxPayload,
    perMessageDeflate: false,
    followRedirects: false,
    generateMask: nonZeroMask,
    ...({ closeTimeout: o.closeTimeoutMs } as object),
    ...(t !== null ? {
      ...(t.ca ? { ca: [...t.ca] } : {}),
      rejectUnauthorized: true,
      checkServerIdentity: t.checkServerIdentity as unknown as WebSocket.ClientOptions['checkServerIdentity'],
      ...(t.clientKeyPem && t.clientCertPem ? { key: t.clientKeyPem, cert: t.clientCertPem } : {}),
    } : {}),
  });
  let settled = false;
  let connected = false;
  const settle = (): boolean => {
    if (settled) return false;
    settled = true;
    ws.removeListener('open', onOpen);
    ws.removeListener('error', onError);
    ws.removeListener('unexpected-response', onUnexpected);
    ws.removeListener('upgrade', onUpgrade);
    // Later errors belong to the session (the relay listens); until it does, none may go unhandled.
    ws.on('error', ignore);
    return true;
  };
  const onUpgrade = (): void => { connected = true; };
  const onOpen = (): void => {
    if (!settle()) return;
    handler.onBackendOpen(ws);
  };
  const onError = (err: Error & { code?: string }): void => {
    if (!settle()) return;
    ws.terminate();
    let e: BackendTransportError;
    if (err.code !== undefined) {
      e = new BackendTransportError(baseForSocketError(err.code, false, false), ProtocolState.REQUEST_READY, `${err.code}: ${err.message}`);
    } else if (/handshake has timed out/i.test(err.message)) {
      e = new BackendTransportError(TransportErrorCode.CONNECT_TIMEOUT, ProtocolState.REQUEST_READY, err.message);
    } else {
      e = new BackendTransportError(TransportErrorCode.NHTTP_PROTOCOL_VIOLATION, connected ? ProtocolState.RESPONSE_HEAD : ProtocolState.REQUEST_DONE, err.message);
    }
    handler.onBackendFailed(e);
  };
  const onUnexpected = (req: { destroy(): void }, res: IncomingMessage): void => {
    if (settled) { req.destroy(); return; }
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      if (!settle()) return;
      req.destroy();
      ws.terminate();
      const headers: [string, string][] = [];
      const raw = res.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) if (!REFUSAL_DROP.has(raw[i]!.toLowerCase())) headers.push([raw[i]!, raw[i + 1]!]);
      handler.onBackendRefused(res.statusCode ?? 502, headers, Buffer.concat(chunks));
    };
    res.on('data', (c: Buffer) => {
      if (size < REFUSAL_BODY_LIMIT) { chunks.push(c.subarray(0, REFUSAL_BODY_LIMIT - size)); size += c.length; }
      if (size >= REFUSAL_BODY_LIMIT) done();
    });
    res.on('end', done);
    res.on('error', done);
  };
  ws.on('open', onOpen);
  ws.on('error', onError);
  ws.on('unexpected-response', onUnexpected);
  ws.on('upgrade', onUpgrade);
  return {
    abort(): void {
      if (!settle()) return;
      ws.terminate();
    },
  };
}

function ignore(): void {}

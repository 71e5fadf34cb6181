import type WebSocket from 'ws';
import { CloseCode, closeReason, sendableCode } from './close-codes.js';

/**
 * What the gateway does with each message on its way (throttling, dispatch sequences, token checks). The
 * relay calls it before it sends; null when a session needs none of it.
 */
export interface RelayFilter<M> {
  /**
   * A client message for the backend. true: the relay sends it as it is. false: the filter took care of it
   * (sent something else with `relay.toBackend` / `relay.toClient`, dropped it, or closed the relay).
   * `data` is valid only during the call: copy what must outlive it.
   */
  inbound(relay: WsRelay<M>, data: Buffer, isBinary: boolean): boolean;
  /** A backend message for the client; same contract. */
  outbound(relay: WsRelay<M>, data: Buffer, isBinary: boolean): boolean;
}

export interface RelayListener<M> {
  /** Both sides are closed; the relay holds no socket any more. Called once. */
  onRelayClosed(relay: WsRelay<M>): void;
}

export interface RelaySettings {
  /** Bytes waiting for the client above which the backend is paused (resumed at half). */
  readonly highWaterMark: number;
  /** Bytes waiting for the backend above which the client is closed with 1013. */
  readonly maxBufferedBytes: number;
}

/** Who ended the session, for logs and tests. */
export type CloseCause = '' | 'client' | 'backend' | 'gateway';

const OPEN = 1;
const TEXT = { binary: false };
const BINARY = { binary: true };

// Sends to a client are queued and written with its socket corked once per tick: the messages ws parsed
// from one read of the backend socket leave in one write.
const flushTick = (r: WsRelay<unknown>): void => { r.flushToClient(); };
const PING = 2;
const uncorkTick = (r: WsRelay<unknown>): void => { r.uncorkBackend(); };

/** ws keeps its net.Socket in `_socket` (no public accessor); corking it batches our writes. */
interface WithSocket { readonly _socket?: { cork(): void; uncork(): void; on(e: 'drain', f: () => void): void } | null }

/**
 * One WebSocket session through the gateway: the client's socket and the backend's (both ws),
 * with messages relayed both ways as whole messages (text stays text, binary stays binary; fragments were
 * joined by the side that received them).
 *
 * Back-pressure: backend -> client, the backend socket is paused while more than `highWaterMark` bytes
 * wait for the client and resumed when the client's socket drains to half of it. Client -> backend, writes
 * queue in the backend socket; past `maxBufferedBytes` the client is closed with 1013 (try again later).
 *
 * Writes are batched: frames for the client are queued and written with its socket corked at the end of
 * the tick (ws emits every message of one backend read in one tick); the backend socket is corked from the
 * first client message of a loop iteration until its check phase, so a burst goes out in one writev
 * instead of a syscall per message.
 *
 * Pings are answered by each hop (ws on both sides) and also passed on to the other side; pongs stop at
 * the hop. Close codes pass through both ways; see `onClientClose` and
 * `onBackendClose` for the mapping of abnormal ends.
 */
export class WsRelay<M> {
  client: WebSocket | null = null;
  /** The last time the client was heard from (any frame), for the idle timeout. */
  clientSeenAt = Date.now();
  /** A ping went to the idle client and no answer came yet. */
  idlePingSent = false;
  private clientOpen = false;
  /** The gateway is closing the client (its close handler runs within `end`). */
  private closingClient = false;
  private backendPaused = false;
  /** Backend messages that arrived before the client socket was attached: [data, isBinary, ...]. */
  private pending: (Buffer | boolean)[] | null = null;
  /** Frames for the client, written at the end of the tick: [data, kind (0 text, 1 binary, 2 ping), ...]. */
  private outQueue: (Buffer | number)[] = [];
  private flushScheduled = false;
  /** The backend socket is corked until the end of this tick (the client's messages of one read, one write). */
  private backendCorked = false;
  private finished = false;
  private clientDone = false;
  private backendDone = false;
  readonly openedAt = Date.now();
  inMessages = 0;
  inBytes = 0;
  outMessages = 0;
  outBytes = 0;
  /** Close codes each side got (0 until then) and who started the close. */
  clientCloseCode = 0;
  backendCloseCode = 0;
  cause: CloseCause = '';
  /** Why the backend side failed, for logs (may hold addresses; never sent to the client). */
  backendError = '';

  constructor(
    readonly meta: M,
    readonly backend: WebSocket,
    private readonly settings: RelaySettings,
    private readonly filter: RelayFilter<M> | null,
    private readonly listener: RelayListener<M>,
  ) {
    backend.on('message', this.onBackendMessage);
    backend.on('close', this.onBackendClose);
    backend.on('error', this.onBackendError);
    backend.on('ping', this.onBackendPing);
  }

  get closed(): boolean {
    return this.finished;
  }

  // ---- the client side (ws events) ----------------------------------------------------------------------

  /** The upgrade completed: the client socket exists now; messages the backend sent meanwhile go out first. */
  attachClient(ws: WebSocket): void {
    this.client = ws;
    this.clientOpen = true;
    ws.on('message', (data: Buffer, isBinary: boolean) => this.onClientMessage(data, isBinary));
    ws.on('ping', (data: Buffer) => { this.heard(); this.onClientPing(data); });
    ws.on('pong', () => this.heard());
    ws.on('close', (code: number, reason: Buffer) => this.onClientClose(code, reason));
    ws.on('error', () => { /* 'close' follows */ });
    (ws as unknown as WithSocket)._socket?.on('drain', () => this.onClientDrain());
    const p = this.pending;
    this.pending = null;
    if (p !== null) for (let i = 0; i < p.length && this.clientOpen; i += 2) this.deliver(p[i] as Buffer, p[i + 1] as boolean);
    // The backend closed before the client was attached: pass its close on now.
    if (this.backendDone && this.clientOpen) this.onBackendClose(this.backendCloseCode || CloseCode.ABNORMAL, Buffer.alloc(0));
  }

  private heard(): void {
    this.clientSeenAt = Date.now();
    this.idlePingSent = false;
  }

  /** A client message (ws made it whole: a Buffer of its own). */
  onClientMessage(data: Buffer, isBinary: boolean): void {
    this.heard();
    const backend = this.backend;
    if (backend.readyState !== OPEN) return;
    this.inMessages++;
    this.inBytes += data.length;
    if (this.filter !== null && !this.filter.inbound(this, data, isBinary)) return;
    this.toBackend(data, isBinary);
  }

  /** Sends to the backend (ws copies `data` into the masked frame before returning). */
  toBackend(data: Buffer, isBinary: boolean): void {
    const backend = this.backend;
    if (backend.readyState !== OPEN) return;
    if (!this.backendCorked) {
      const sock = (backend as unknown as WithSocket)._socket;
      if (sock) {
        sock.cork();
        this.backendCorked = true;
        setImmediate(uncorkTick, this);
      }
    }
    backend.send(data, isBinary ? BINARY : TEXT);
    if (backend.bufferedAmount > this.settings.maxBufferedBytes) {
      this.close(CloseCode.TRY_AGAIN_LATER, 'The backend is not reading fast enough', CloseCode.GOING_AWAY, 'Client closed by the gateway');
    }
  }

  uncorkBackend(): void {
    if (!this.backendCorked) return;
    this.backendCorked = false;
    (this.backend as unknown as WithSocket)._socket?.uncork();
  }

  /** The client's socket drained: the backend goes on below half the mark. */
  onClientDrain(): void {
    if (!this.backendPaused || this.client === null) return;
    if (this.client.bufferedAmount <= this.settings.highWaterMark >>> 1) {
      this.backendPaused = false;
      this.backend.resume();
    }
  }

  /** A client ping: ws has answered it; the backend sees it too. */
  onClientPing(data: Buffer): void {
    if (this.backend.readyState === OPEN) this.backend.ping(data);
  }

  /** The idle client gets a ping; `false` when it stayed silent past the timeout since (it is dropped). */
  pingIdle(now: number, idleMs: number): boolean {
    if (!this.clientOpen || this.client === null) return true;
    if (now - this.clientSeenAt < idleMs / 2) return true;
    if (!this.idlePingSent) { this.idlePingSent = true; this.client.ping(); return true; }
    if (now - this.clientSeenAt < idleMs) return true;
    if (this.cause === '') this.cause = 'gateway';
    this.closeBackend(CloseCode.GOING_AWAY, 'Client timed out');
    this.closingClient = true;
    this.client.terminate();
    return false;
  }

  /**
   * ws `close` (any end of the client socket, our own `close` included). A client that closed with a code
   * the protocol lets through passes it (and its reason) to the backend; one that vanished (1006) or sent no
   * code (1005) closes the backend with 1001.
   */
  onClientClose(code: number, reason: Buffer): void {
    this.clientOpen = false;
    this.client = null;
    this.outQueue.length = 0;
    this.clientDone = true;
    if (this.clientCloseCode === 0) this.clientCloseCode = code;
    if (!this.closingClient) {
      if (this.cause === '') this.cause = 'client';
      if (sendableCode(code)) this.closeBackend(code, reason.toString());
      else this.closeBackend(CloseCode.GOING_AWAY, 'Client went away');
    }
    this.maybeFinished();
  }

  // ---- the backend side (ws events) -----------------------------------------------------------------

  private readonly onBackendMessage = (data: Buffer, isBinary: boolean): void => {
    if (!this.clientOpen) {
      if (this.client === null && !this.clientDone) (this.pending ??= []).push(data, isBinary);
      return;
    }
    this.deliver(data, isBinary);
  };

  private deliver(data: Buffer, isBinary: boolean): void {
    this.outMessages++;
    this.outBytes += data.length;
    if (this.filter !== null && !this.filter.outbound(this, data, isBinary)) return;
    this.toClient(data, isBinary);
  }

  /** Sends to the client at the end of this tick (in order, in one cork); pauses the backend past the mark. */
  toClient(data: Buffer, isBinary: boolean): void {
    this.queueForClient(data, isBinary ? 1 : 0);
  }

  private queueForClient(data: Buffer, kind: number): void {
    if (!this.clientOpen) return;
    this.outQueue.push(data, kind);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    process.nextTick(flushTick, this);
  }

  /** Writes what is queued for the client (also called before a close frame, which must come last). */
  flushToClient(): void {
    this.flushScheduled = false;
    if (this.outQueue.length === 0) return;
    if (!this.clientOpen) { this.outQueue.length = 0; return; }
    const c = this.client!;
    const sock = (c as unknown as WithSocket)._socket;
    sock?.cork();
    const q = this.outQueue;
    for (let i = 0; i < q.length; i += 2) {
      const kind = q[i + 1] as number;
      if (kind === PING) c.ping(q[i] as Buffer);
      else c.send(q[i] as Buffer, kind === 1 ? BINARY : TEXT);
    }
    q.length = 0;
    sock?.uncork();
    if (!this.backendPaused && c.bufferedAmount > this.settings.highWaterMark) {
      this.backendPaused = true;
      this.backend.pause();
    }
  }

  private readonly onBackendPing = (data: Buffer): void => {
    this.queueForClient(data, PING);
  };

  private readonly onBackendError = (err: Error & { code?: string }): void => {
    // ws emits `close` (1006) after this; the error is kept for the log.
    this.backendError = err.code ? `${err.code}: ${err.message}` : err.message;
  };

  /**
   * ws `close`: the backend socket is gone. Its close code and reason pass to the client; no code (1005)
   * closes the client without one; a connection lost without a close frame (1006) is 1011.
   */
  private readonly onBackendClose = (code: number, reason: Buffer): void => {
    this.backendDone = true;
    if (this.backendCloseCode === 0) this.backendCloseCode = code;
    if (this.clientOpen && !this.closingClient) {
      if (this.cause === '') this.cause = 'backend';
      this.flushToClient();
      this.closingClient = true;
      const c = this.client!;
      if (sendableCode(code)) c.close(code, closeReason(reason.toString()));
      else if (code === CloseCode.NO_STATUS) c.close();
      else c.close(CloseCode.INTERNAL_ERROR, 'Backend connection lost');
    }
    this.maybeFinished();
  };

  // ---- closing ------------------------------------------------------------------------------------------

  /** The gateway ends the session: the client gets `clientCode`, the backend `backendCode`. */
  close(clientCode: number, clientReason: string, backendCode: number, backendReason: string): void {
    if (this.cause === '') this.cause = 'gateway';
    this.closeBackend(backendCode, backendReason);
    if (this.clientOpen && !this.closingClient) {
      this.flushToClient();
      this.closingClient = true;
      this.clientCloseCode = clientCode;
      this.client!.close(clientCode, closeReason(clientReason));
    } else if (this.client === null && !this.clientDone) {
      // Not attached yet (the upgrade has not happened): nothing to tell the client.
      this.clientDone = true;
      this.maybeFinished();
    }
  }

  private closeBackend(code: number, reason: string): void {
    this.uncorkBackend();
    const b = this.backend;
    if (b.readyState === OPEN) b.close(sendableCode(code) ? code : CloseCode.GOING_AWAY, closeReason(reason));
    else if (b.readyState === 0) b.terminate();
    if (this.backendPaused) {
      // A paused socket would not read the backend's close frame.
      this.backendPaused = false;
      b.resume();
    }
  }

  /** Drops both sides at once, without close frames (a stop past its deadline). */
  terminate(): void {
    if (this.cause === '') this.cause = 'gateway';
    this.backend.terminate();
    if (this.clientOpen) {
      this.closingClient = true;
      this.client!.terminate();
    }
  }

  private maybeFinished(): void {
    if (this.finished || !this.clientDone || !this.backendDone) return;
    this.finished = true;
    this.pending = null;
    this.listener.onRelayClosed(this);
  }
}

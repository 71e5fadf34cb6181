import type net from 'node:net';
import { getSystemErrorName } from 'node:util';

/**
 * Writes to a plain TCP socket straight through its libuv handle, past node:stream's Writable, when the
 * stream has nothing of its own queued.
 *
 * Why: a proxied call writes twice (the request head to the backend, the response to the client), and
 * each `socket.write` runs Writable's state machine (length accounting, a write request, the after-write
 * tick) around the one system call that matters. Writing through the handle does what Node's own
 * `writeGeneric` does underneath (a WriteWrap, `writeBuffer`/`writeLatin1String`, which try the write at
 * once and queue the rest in libuv, and the socket timeout's restart) and nothing else.
 *
 * Order is kept: a direct write is made only when the Writable holds nothing (not corked, nothing
 * buffered), and libuv writes its queue in order, so bytes given to the stream before a direct write leave
 * before it, and bytes given after it (to either path) leave after it. `end()` stays correct because
 * libuv's shutdown waits for the writes queued before it. What the stream does not see is a direct write
 * libuv could not finish at once: `pending` counts those, back-pressure includes them, and `onDrained`
 * runs when the last completes, as the stream's 'drain' would.
 *
 * The handle's methods come from Node's stream_wrap binding (process.binding, allow-listed in Node 20 and
 * 22 for exactly this kind of use); docs/decisions.md says why Sluice reaches for it.
 */

interface WriteReq {
  handle: unknown;
  oncomplete: (this: WriteReq, status: number) => void;
  owner: DirectWriter | null;
  buffer: Buffer | (string | Buffer)[] | null;
}

interface StreamHandle {
  writeBuffer(req: WriteReq, data: Buffer): number;
  writeLatin1String(req: WriteReq, data: string): number;
  /** `chunks`: [data, encoding, data, encoding, ...]; strings are copied, Buffers referenced until done. */
  writev(req: WriteReq, chunks: (string | Buffer)[], allBuffers: boolean): number;
}

interface StreamWrapBinding {
  WriteWrap: new () => WriteReq;
  streamBaseState: Int32Array;
  kLastWriteWasAsync: number;
}

/** The binding, or null where this Node.js does not offer it (every write then goes through the stream). */
function streamWrap(): StreamWrapBinding | null {
  try {
    const b = (process as unknown as { binding(name: string): Partial<StreamWrapBinding> }).binding('stream_wrap');
    return typeof b.WriteWrap === 'function' && b.streamBaseState instanceof Int32Array && typeof b.kLastWriteWasAsync === 'number' ? b as StreamWrapBinding : null;
  } catch {
    return null;
  }
}

const binding = streamWrap();
const WriteWrap = binding?.WriteWrap as StreamWrapBinding['WriteWrap'];
const streamBaseState = binding?.streamBaseState as Int32Array;
const LAST_WRITE_WAS_ASYNC = binding?.kLastWriteWasAsync ?? 0;

/** A libuv error as node:net reports it ('error' with code and syscall). */
function writeError(status: number): NodeJS.ErrnoException {
  const code = getSystemErrorName(status);
  const err = new Error(`write ${code}`) as NodeJS.ErrnoException;
  err.errno = status;
  err.code = code;
  err.syscall = 'write';
  return err;
}

/**
 * A socket with a timeout (`setTimeout`: the sender's backend sockets) restarts it on every write, as a
 * stream write does: a request written to a connection that sat idle gets the whole timeout for its answer.
 * A socket without one (the front door's, timed by its sweeper) pays a property check.
 */
function refreshTimeout(s: net.Socket): void {
  (s as net.Socket & { _unrefTimer(): void })._unrefTimer();
}

function onDirectWriteComplete(this: WriteReq, status: number): void {
  const w = this.owner!;
  this.owner = null;
  this.buffer = null;
  w.pending--;
  const s = w.socket;
  if (s.destroyed) return;
  if (status < 0) { s.destroy(writeError(status)); return; }
  refreshTimeout(s);
  if (w.pending === 0 && !s.writableNeedDrain) w.onDrained();
}

/** Where a connection's bytes go: straight to the handle (plain TCP) or through the stream (TLS). */
export interface SocketOut {
  /** Writes `data`; false when the socket is full (wait for the drain). `data` must not be reused. */
  write(data: Buffer): boolean;
  /** Writes a string byte per character (latin1). */
  writeLatin1(text: string): boolean;
  /** Writes pieces in one system call where it can: strings byte per character, Buffers not reused. */
  writev(parts: readonly (string | Buffer)[]): boolean;
  /** Whether the socket is full. */
  readonly needsDrain: boolean;
}

/** Through node:stream (TLS sockets, whose handle encrypts: their writes go through the TLS layer). */
export class StreamOut implements SocketOut {
  constructor(readonly socket: net.Socket) {}
  write(data: Buffer): boolean { return this.socket.write(data); }
  writeLatin1(text: string): boolean { return this.socket.write(text, 'latin1'); }
  writev(parts: readonly (string | Buffer)[]): boolean { return corkedWrite(this.socket, parts); }
  get needsDrain(): boolean { return this.socket.writableNeedDrain; }
}

/** The pieces through the stream, corked: they leave in one writev. */
function corkedWrite(s: net.Socket, parts: readonly (string | Buffer)[]): boolean {
  s.cork();
  let ok = true;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    ok = (typeof p === 'string' ? s.write(p, 'latin1') : s.write(p)) && ok;
  }
  s.uncork();
  return ok;
}

/** The direct writer of one plain TCP socket. */
export class DirectWriter implements SocketOut {
  /** Direct writes libuv still holds (it could not send them at once). */
  pending = 0;

  constructor(readonly socket: net.Socket, readonly onDrained: () => void) {}

  /** The handle, when a direct write may be made now; null sends the bytes through the stream. */
  private handle(): StreamHandle | null {
    const s = this.socket as net.Socket & { _handle: StreamHandle | null };
    if (s.writableLength !== 0 || s.writableCorked !== 0 || s.connecting || !s.writable) return null;
    return s._handle;
  }

  write(data: Buffer): boolean {
    const h = this.handle();
    if (h === null) return this.socket.write(data);
    const req = new WriteWrap();
    req.handle = h;
    req.oncomplete = onDirectWriteComplete;
    return this.dispatched(req, h.writeBuffer(req, data), data);
  }

  writeLatin1(text: string): boolean {
    const h = this.handle();
    if (h === null) return this.socket.write(text, 'latin1');
    const req = new WriteWrap();
    req.handle = h;
    req.oncomplete = onDirectWriteComplete;
    // libuv keeps its own copy of a string it could not send at once.
    return this.dispatched(req, h.writeLatin1String(req, text), null);
  }

  writev(parts: readonly (string | Buffer)[]): boolean {
    const h = this.handle();
    if (h === null) return corkedWrite(this.socket, parts);
    const chunks: (string | Buffer)[] = new Array<string | Buffer>(parts.length * 2);
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      chunks[2 * i] = p;
      chunks[2 * i + 1] = typeof p === 'string' ? 'latin1' : 'buffer';
    }
    const req = new WriteWrap();
    req.handle = h;
    req.oncomplete = onDirectWriteComplete;
    return this.dispatched(req, h.writev(req, chunks, false), chunks);
  }

  private dispatched(req: WriteReq, err: number, data: Buffer | (string | Buffer)[] | null): boolean {
    if (err !== 0) {
      this.socket.destroy(writeError(err));
      return true;
    }
    refreshTimeout(this.socket);
    if (streamBaseState[LAST_WRITE_WAS_ASYNC] === 0) return !this.socket.writableNeedDrain;
    req.owner = this;
    req.buffer = data;
    this.pending++;
    return false;
  }

  /** The stream's own queue, or direct writes libuv holds. */
  get needsDrain(): boolean {
    return this.pending !== 0 || this.socket.writableNeedDrain;
  }
}

/**
 * The writer of a connection: direct for plain TCP where Node offers its stream binding, through the stream
 * otherwise (TLS, or a Node.js without the binding).
 */
export function socketOut(socket: net.Socket, plain: boolean, onDrained: () => void): SocketOut {
  return plain && binding !== null && typeof (socket as net.Socket & { _unrefTimer?: unknown })._unrefTimer === 'function'
    ? new DirectWriter(socket, onDrained) : new StreamOut(socket);
}

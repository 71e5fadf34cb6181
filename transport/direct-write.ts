import type net from 'node:net';
import { getSystemErrorName } from 'node:util';
import { endTurnSoon, setTurnWriterFlush } from './event-turn.js';
import { turnArena, type Region } from './turn-arena.js';
import { unsentOf, writeNow } from './lent-write.js';

/**
 * A connection's writer: the bytes given during one turn of the event loop leave at its end, in one write
 * (TurnWriter, below), and on plain TCP that write goes straight through the socket's libuv handle, past
 * node:stream's Writable, when the stream has nothing of its own queued (DirectWriter).
 *
 * Why the handle: a proxied call writes twice (the request head to the backend, the response to the
 * client), and each `socket.write` runs Writable's state machine (length accounting, a write request, the
 * after-write tick) around the one system call that matters. Writing through the handle does what Node's own
 * `writeGeneric` does underneath (a WriteWrap, `writeBuffer`/`writeLatin1String`/`writev`, which try the
 * write at once and queue the rest in libuv, and the socket timeout's restart) and nothing else.
 *
 * Order is kept: every byte of a connection goes through its writer, in the order given; a direct write is
 * made only when the Writable holds nothing (not corked, nothing buffered), and libuv writes its queue in
 * order, so bytes the stream holds leave before it. `end()` comes after a `flush()`, and libuv's shutdown
 * waits for the writes queued before it. What the stream does not see is a direct write libuv could not
 * finish at once: `pending` counts those, back-pressure includes them, and `onDrained` runs when the last
 * completes, as the stream's 'drain' would.
 *
 * The handle's methods come from Node's stream_wrap binding (process.binding, allow-listed in Node 20 and
 * 22 for exactly this kind of use); docs/decisions.md says why Sluice reaches for it.
 */

interface WriteReq {
  handle: unknown;
  oncomplete: (this: WriteReq, status: number) => void;
  owner: DirectWriter | null;
  buffer: Buffer | (string | Buffer)[] | null;
  /** The turn's regions libuv holds pieces of for this write (turn-arena.ts). */
  regions: Region[] | null;
}

interface StreamHandle {
  writeBuffer(req: WriteReq, data: Buffer): number;
  writeLatin1String(req: WriteReq, data: string): number;
  /** `chunks`: [data, encoding, data, encoding, ...]; strings are copied, Buffers referenced until done. */
  writev(req: WriteReq, chunks: (string | Buffer)[], allBuffers: boolean): number;
  /** The socket's descriptor (-1 where there is none). */
  readonly fd: number;
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

function onDirectWriteComplete(this: WriteReq, status: number): void {
  const w = this.owner!;
  this.owner = null;
  this.buffer = null;
  const regions = this.regions;
  if (regions !== null) {
    this.regions = null;
    for (let i = 0; i < regions.length; i++) turnArena.unhold(regions[i]!);
  }
  w.pending--;
  const s = w.socket;
  if (s.destroyed) return;
  if (status < 0) { s.destroy(writeError(status)); return; }
  if (!w.needsDrain) w.onDrained();
}

/**
 * Where a connection's bytes go. Bytes given during one turn of the event loop are gathered and leave at its
 * end, in order, in one write per socket (see `TurnWriter`); `flush` sends them now. The writer owns the
 * socket's output: anything written straight to the socket, and its `end()`, must come after a `flush()`.
 */
export interface SocketOut {
  /** Writes `data`; false when the socket is full (wait for the drain). `data` must not be reused. */
  write(data: Buffer): boolean;
  /**
   * `n` bytes to fill and give to `write` before this callback returns, and never keep: memory of the
   * turn (turn-arena.ts) when the writer will send it before the turn ends, else a Buffer of its own.
   */
  scratch(n: number): Buffer;
  /** Writes a copy of `bytes`, a view that is only lent (valid during this callback). */
  writeLent(bytes: Uint8Array): boolean;
  /** Writes a string byte per character (latin1). */
  writeLatin1(text: string): boolean;
  /** Writes pieces in order: strings byte per character, Buffers not reused. */
  writev(parts: readonly (string | Buffer)[]): boolean;
  /** Gives what this turn gathered to the socket now (before an `end()`, a `destroy()` or a hand-over). */
  flush(): void;
  /** Whether the socket is full. */
  readonly needsDrain: boolean;
}

/**
 * A turn's gathered bytes over this many leave at once: coalescing is for small writes, and a large body's
 * pieces keep the socket's back-pressure as they would without it.
 */
export const TURN_FLUSH_BYTES = 16 * 1024;

/** Writers holding bytes of the current turn, flushed at its end (event-turn.ts: one setImmediate per turn, per thread). */
const due: TurnWriter[] = [];

function endOfTurn(): void {
  // A flush may make another writer gather (an error handler answering): it joins this list and this loop.
  for (let i = 0; i < due.length; i++) {
    const w = due[i]!;
    w.due = false;
    // One connection's failure must not leave the others' bytes unwritten: it fails alone, visibly.
    try { w.flush(); } catch (err) { w.socket.destroy(err as Error); }
  }
  due.length = 0;
  // Every piece of the turn was sent, or libuv holds its region (DirectWriter.dispatched).
  turnArena.endTurn();
}
setTurnWriterFlush(endOfTurn);

/**
 * Gathers the bytes a connection is given during one turn of the event loop and writes them at the turn's
 * end (the check phase, right after the poll phase that ran the turn's socket callbacks).
 *
 * Why: on loopback and on a LAN the costliest part of a proxied call is not a system call but the wake-up
 * it causes. A write to a peer asleep in epoll_wait wakes it (an inter-processor interrupt, which on a
 * virtual machine is an exit to the hypervisor); writing each response the moment it is ready woke the
 * backend and the client once per call. Written together at the end of the turn, the calls a turn served
 * wake each peer once, and the peer then finds several requests in one epoll_wait, as the gateway does.
 * Same-run A/B (docs/performance.md): 1.3x requests/s for small GETs at 1 io thread, CPU per call down
 * by a quarter, p99 lower. A byte waits at most for the rest of its turn's callbacks.
 */
abstract class TurnWriter implements SocketOut {
  protected parts: (string | Buffer)[] = [];
  protected bytes = 0;
  /** In `due` (set and cleared by the turn's list only). */
  due = false;

  constructor(readonly socket: net.Socket) {}

  write(data: Buffer): boolean {
    this.parts.push(data);
    return this.gathered(data.length);
  }

  writeLatin1(text: string): boolean {
    this.parts.push(text);
    return this.gathered(text.length);
  }

  writeLent(bytes: Uint8Array): boolean {
    const copy = this.scratch(bytes.length);
    copy.set(bytes, 0);
    return this.write(copy);
  }

  abstract scratch(n: number): Buffer;

  writev(parts: readonly (string | Buffer)[]): boolean {
    let n = 0;
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      this.parts.push(p);
      n += p.length;
    }
    return this.gathered(n);
  }

  private gathered(n: number): boolean {
    this.bytes += n;
    if (!this.due) {
      this.due = true;
      due.push(this);
      endTurnSoon();
    }
    if (this.bytes >= TURN_FLUSH_BYTES) this.flush();
    return !this.needsDrain;
  }

  flush(): void {
    const parts = this.parts;
    if (parts.length === 0) return;
    this.parts = [];
    this.bytes = 0;
    // Bytes for a socket that was destroyed in the meantime go nowhere, as a write after destroy() would.
    if (this.destroyed) return;
    this.send(parts);
  }

  /** Writes one turn's pieces (at least one). */
  protected abstract send(parts: (string | Buffer)[]): void;

  /** Whether the socket was destroyed. */
  protected abstract readonly destroyed: boolean;

  abstract readonly needsDrain: boolean;
}

/** Through node:stream (TLS sockets, whose handle encrypts: their writes go through the TLS layer). */
export class StreamOut extends TurnWriter {
  protected send(parts: (string | Buffer)[]): void { streamSend(this.socket, parts); }

  /** The stream keeps what it cannot send at once, by reference: a Buffer of its own. */
  scratch(n: number): Buffer { return Buffer.allocUnsafe(n); }

  get needsDrain(): boolean { return this.socket.writableNeedDrain; }

  protected get destroyed(): boolean { return this.socket.destroyed; }
}

/** Pieces through node:stream: more than one corked, so they leave in one writev. */
function streamSend(s: net.Socket, parts: readonly (string | Buffer)[]): void {
  const corked = parts.length > 1;
  if (corked) s.cork();
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (typeof p === 'string') s.write(p, 'latin1');
    else s.write(p);
  }
  if (corked) s.uncork();
}

/**
 * A WriteWrap that no write kept: libuv takes one only for a write it could not finish at once, so the
 * usual write (taken by the kernel whole) leaves it free for the next.
 */
let spareReq: WriteReq | null = null;

function writeReq(): WriteReq {
  const req = spareReq;
  if (req !== null) { spareReq = null; return req; }
  const fresh = new WriteWrap();
  fresh.oncomplete = onDirectWriteComplete;
  fresh.owner = null;
  fresh.buffer = null;
  fresh.regions = null;
  return fresh;
}

/**
 * What a direct writer reads of a socket's node:stream WritableState (Node 20's getters over its state bits).
 * The socket's own getters (`writableLength`, `writableCorked`, `writable`, `destroyed`, `writableNeedDrain`)
 * each load `_writableState` (and `destroyed` `_readableState` too) from the socket, a check of the socket's
 * shape each, and sockets come in several shapes (accepted or connected, with or without a server). The
 * state object has one shape, and a socket keeps the same one for its life. Callgrind, pass-through GET
 * (stop 44): flush 2 745 -> 2 614 instructions a call.
 */
interface WritableStateView {
  readonly length: number;
  readonly corked: number;
  readonly destroyed: boolean;
  readonly ending: boolean;
  readonly needDrain: boolean;
}

/** The direct writer of one plain TCP socket. */
export class DirectWriter extends TurnWriter {
  /** Direct writes libuv still holds (it could not send them at once). */
  pending = 0;
  private readonly ws: WritableStateView;

  /**
   * No write restarts a socket timeout: none of the sockets written here has one (the front door's are timed
   * by its sweeper, the backend's by the sender's idle watch), and Node's `_unrefTimer` walks the socket's
   * parents with a megamorphic symbol load each, about 300 instructions a write by callgrind, to find none.
   */
  constructor(socket: net.Socket, readonly onDrained: () => void) {
    super(socket);
    this.ws = (socket as net.Socket & { _writableState: WritableStateView })._writableState;
  }

  /**
   * Memory of the turn: a direct write sends it, and libuv holds its region for what it cannot send at once
   * (dispatched); when the bytes go through the stream after all, which keeps what it is given, `send` copies
   * them. Not asked here: that costs the stream's getters on every piece, for a path pieces seldom take.
   */
  scratch(n: number): Buffer {
    const parts = this.parts;
    const last = parts.length - 1;
    // Text followed by bytes of the turn (a request head, then its body): the text goes into the turn's
    // memory first, so that both lie end to end and leave in one writeBuffer (send). Node's writev with
    // a string among its chunks cost a POST about 2 500 instructions (callgrind, stop 38): a property
    // lookup per chunk, the string's encoding into memory of its own, handle scopes.
    if (last >= 0) parts[last] = inTurn(parts[last]!);
    return turnArena.take(n);
  }

  /**
   * A lent piece as large as a turn's flush goes at once, with what the turn gathered before it, straight
   * to the socket's descriptor (lent-write.ts): the kernel takes it from the lent memory, and only what it
   * does not take is copied and queued. Only when nothing is queued anywhere (no direct write libuv holds,
   * nothing in the stream), so the bytes keep their order; otherwise it is copied as any lent piece.
   */
  override writeLent(bytes: Uint8Array): boolean {
    if (bytes.length >= TURN_FLUSH_BYTES && this.pending === 0) {
      const fd = this.handle()?.fd ?? -1;
      if (fd >= 0) return this.sendLent(fd, bytes);
    }
    return super.writeLent(bytes);
  }

  private sendLent(fd: number, bytes: Uint8Array): boolean {
    const gathered = this.parts;
    this.parts = [];
    this.bytes = 0;
    const pieces: Uint8Array[] = new Array<Uint8Array>(gathered.length + 1);
    for (let i = 0; i < gathered.length; i++) pieces[i] = inTurn(gathered[i]!);
    pieces[gathered.length] = bytes;
    const sent = writeNow(fd, pieces);
    if (sent < 0) {
      this.socket.destroy(writeError(sent));
      return false;
    }
    const rest = unsentOf(pieces, sent, (b) => turnArena.copy(b));
    if (rest.length > 0) this.send(rest);
    return !this.needsDrain;
  }

  /** The handle, when a direct write may be made now; null sends the bytes through the stream. */
  private handle(): StreamHandle | null {
    const ws = this.ws;
    // As the socket's `writable` getter (an error destroys a socket: net's sockets auto-destroy), and nothing
    // the stream holds or a cork would hold back.
    if (ws.length !== 0 || ws.corked !== 0 || ws.destroyed || ws.ending) return null;
    const s = this.socket as net.Socket & { _handle: StreamHandle | null };
    return s.connecting ? null : s._handle;
  }

  protected send(parts: (string | Buffer)[]): void {
    const h = this.handle();
    if (h === null) {
      // The stream holds bytes (given before a flush) or is not connected yet: behind them, through it. It
      // keeps them by reference, so pieces of the turn's memory go as copies of their own.
      for (let i = 0; i < parts.length; i++) {
        const p = parts[i]!;
        if (typeof p !== 'string' && turnArena.regionOf(p) !== null) parts[i] = Buffer.from(p);
      }
      streamSend(this.socket, parts);
      return;
    }
    const req = writeReq();
    req.handle = h;
    const whole = parts.length === 1 ? parts[0]! : endToEnd(parts);
    if (whole !== null) {
      // libuv keeps its own copy of a string it could not send at once; a Buffer is kept by reference.
      if (typeof whole === 'string') this.dispatched(req, h.writeLatin1String(req, whole), null);
      else this.dispatched(req, h.writeBuffer(req, whole), whole);
      return;
    }
    const chunks: (string | Buffer)[] = new Array<string | Buffer>(parts.length * 2);
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      chunks[2 * i] = p;
      chunks[2 * i + 1] = typeof p === 'string' ? 'latin1' : 'buffer';
    }
    this.dispatched(req, h.writev(req, chunks, false), chunks);
  }

  private dispatched(req: WriteReq, err: number, data: Buffer | (string | Buffer)[] | null): void {
    if (err !== 0) {
      this.socket.destroy(writeError(err));
      return;
    }
    if (streamBaseState[LAST_WRITE_WAS_ASYNC] === 0) {
      spareReq = req;
      if (data !== null && !Array.isArray(data)) turnArena.release(data);
      return;
    }
    // libuv keeps what the kernel did not take, by reference: the turn's regions in it are held until it is done.
    req.regions = data === null ? null : heldRegions(data);
    req.owner = this;
    req.buffer = data;
    this.pending++;
  }

  protected get destroyed(): boolean { return this.ws.destroyed; }

  /** Direct writes libuv holds, or the stream's own queue (as the socket's `writableNeedDrain`). */
  get needsDrain(): boolean {
    const ws = this.ws;
    return this.pending !== 0 || (ws.needDrain && !ws.destroyed && !ws.ending);
  }
}

/** A gathered piece as bytes: text (byte per character) copied into the turn's memory, a Buffer as it is. */
function inTurn(p: string | Buffer): Buffer {
  if (typeof p !== 'string') return p;
  const bytes = turnArena.take(p.length);
  bytes.write(p, 0, 'latin1');
  return bytes;
}

/**
 * The pieces as one Buffer when they lie end to end in the same memory (pieces of the turn's memory cut one
 * after another: a request head and its body, scratch above), else null.
 */
function endToEnd(parts: readonly (string | Buffer)[]): Buffer | null {
  const first = parts[0]!;
  if (typeof first === 'string') return null;
  const memory = first.buffer;
  let end = first.byteOffset + first.length;
  for (let i = 1; i < parts.length; i++) {
    const p = parts[i]!;
    if (typeof p === 'string' || p.buffer !== memory || p.byteOffset !== end) return null;
    end += p.length;
  }
  return Buffer.from(memory, first.byteOffset, end - first.byteOffset);
}

/** The regions of the turn's memory (turn-arena.ts) a direct write's data has pieces of, now held; null: none. */
function heldRegions(data: Buffer | (string | Buffer)[]): Region[] | null {
  let regions: Region[] | null = null;
  const pieces = Array.isArray(data) ? data : [data];
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i]!;
    const r = typeof p === 'string' ? null : turnArena.regionOf(p);
    if (r !== null) { turnArena.hold(r); (regions ??= []).push(r); }
  }
  return regions;
}

/**
 * The writer of a connection: direct for plain TCP where Node offers its stream binding, through the stream
 * otherwise (TLS, or a Node.js without the binding). Both gather a turn's bytes. The socket must not have
 * a timeout (`setTimeout`): a direct write does not restart it.
 */
export function socketOut(socket: net.Socket, plain: boolean, onDrained: () => void): SocketOut {
  return plain && binding !== null ? new DirectWriter(socket, onDrained) : new StreamOut(socket);
}

import t from 'tap';
import type net from 'node:net';
import { PROTOCOL_STATE_NAMES, ProtocolState, stateName } from '../../../transport/protocol-state.js';
import {
  EXCHANGE_MOVES, ImpossibleMove, REQUEST_BODY_MOVES, RequestBody, requestBodyTransition, transition,
} from '../../../transport/sender/exchange-state.js';
import { HostPool } from '../../../transport/sender/host-pool.js';
import { Exchange } from '../../../transport/sender/exchange.js';
import { BodyMode, type OutboundRequest, type SenderHandler } from '../../../transport/sender/sender-handler.js';
import { TransportErrorCode, type BackendTransportError } from '../../../transport/transport-errors.js';
import { rawBackend, onRequestHead } from '../../helpers/backends.js';

// The sender's exchange moves through the protocol states only by the moves of its table
// (transport/sender/exchange-state.ts): the table itself, then exchanges against a backend on raw sockets.

const STATES = PROTOCOL_STATE_NAMES.map((_, i) => i as ProtocolState);
const allowed = new Set(EXCHANGE_MOVES.flatMap(([from, tos]) => tos.map((to) => `${from}>${to}`)));

t.test('every allowed move passes and returns the new state', async (t) => {
  t.ok(allowed.size > 0, 'the table has moves');
  for (const [from, tos] of EXCHANGE_MOVES) {
    for (const to of tos) t.equal(transition(from, to), to, `${stateName(from)} -> ${stateName(to)}`);
  }
  for (const [from, tos] of REQUEST_BODY_MOVES) {
    for (const to of tos) t.equal(requestBodyTransition(from, to), to, `request body ${from} -> ${to}`);
  }
});

t.test('an impossible move throws, naming both states', async (t) => {
  t.throws(() => transition(ProtocolState.REQUEST_READY, ProtocolState.RESPONSE_DONE),
    { name: 'ImpossibleMove', message: /REQUEST_READY -> RESPONSE_DONE/ }, 'no response without a request');
  t.throws(() => transition(ProtocolState.RESPONSE_DONE, ProtocolState.CLOSED), { message: /RESPONSE_DONE -> CLOSED/ }, 'a complete exchange is final');
  t.throws(() => transition(ProtocolState.RESPONSE_BODY, ProtocolState.RESPONSE_BODY), { message: /RESPONSE_BODY -> RESPONSE_BODY/ }, 'no move to itself');
  t.throws(() => requestBodyTransition(RequestBody.SENT, RequestBody.SENT), { message: /request body: impossible move SENT -> SENT/ });
  // Every pair the table does not list, of the nine states.
  let refused = 0;
  for (const from of STATES) {
    for (const to of STATES) {
      if (allowed.has(`${from}>${to}`)) continue;
      try {
        transition(from, to);
        t.fail(`${stateName(from)} -> ${stateName(to)} passed`);
      } catch (e) {
        refused++;
        if (!(e instanceof ImpossibleMove) || !e.message.includes(`${stateName(from)} -> ${stateName(to)}`)) t.fail(`${stateName(from)} -> ${stateName(to)}: ${String(e)}`);
      }
    }
  }
  t.equal(refused, STATES.length * STATES.length - allowed.size, 'every other move of the nine states is refused');
  for (const to of STATES) t.throws(() => transition(ProtocolState.CLOSED, to), `CLOSED -> ${stateName(to)}`);
});

/** An exchange on `pool` whose handler notes the state at each callback (each state once, in order). */
function run(pool: HostPool, req: OutboundRequest, body: Buffer | null): Promise<{ states: string[]; error: BackendTransportError | null; ex: Exchange }> {
  return new Promise((resolve) => {
    const states: string[] = [];
    const note = (): void => {
      const s = stateName(ex.state);
      if (states[states.length - 1] !== s) states.push(s);
    };
    const handler: SenderHandler = {
      onConnect: note,
      onRequestSent: note,
      // The buffered body went out after the head: the exchange is in REQUEST_BODY; the end comes later.
      onDrain() { note(); setImmediate(() => ex.end()); },
      onHeaders: note,
      onData() { note(); return true; },
      onComplete() { note(); resolve({ states, error: null, ex }); },
      onError(err) { note(); resolve({ states, error: err, ex }); },
    };
    // What pool.dispatch does, with the exchange known before its first callback (an idle connection takes it at once).
    const ex = new Exchange(pool, req, handler);
    pool.requeue(ex);
    note();
    if (body !== null) ex.write(body);
    else ex.end();
  });
}

function poolFor(t: { teardown(fn: () => unknown): void }, port: number): HostPool {
  const pool = new HostPool('test', {
    host: '127.0.0.1', port, tls: null, proxy: null, maxConnections: 1, keepAlive: true,
    socketTimeoutMs: 10_000, connectTimeoutMs: 5_000, ioBufferSize: 65_536, maxHeaderSize: 16_384,
  }, Buffer.allocUnsafe(65_536));
  t.teardown(() => pool.destroyAll());
  return pool;
}

/** Reads a request head and its `length` body bytes, then calls `then`. */
function onRequest(sock: net.Socket, length: number, then: () => void): void {
  onRequestHead(sock, (_head, rest) => {
    let got = rest.length;
    if (got >= length) { then(); return; }
    const more = (d: Buffer): void => {
      got += d.length;
      if (got >= length) { sock.removeListener('data', more); then(); }
    };
    sock.on('data', more);
  });
}

const POST: OutboundRequest = {
  head: 'POST /x HTTP/1.1\r\nhost: b\r\ncontent-length: 5\r\n\r\n', bodyMode: BodyMode.CONTENT_LENGTH, isHead: false, retryable: false,
};

t.test('an exchange walks the states in order, REQUEST_READY to RESPONSE_DONE', async (t) => {
  const be = await rawBackend(t, (sock) => onRequest(sock, 5, () => {
    // The head and the body in reads of their own, so that each has its callback.
    sock.write('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n');
    setTimeout(() => sock.write('hello'), 30);
  }));
  const { states, error, ex } = await run(poolFor(t, be.port), POST, Buffer.from('12345'));
  t.equal(error, null, 'no error');
  t.same(states, ['REQUEST_READY', 'REQUEST_HEAD', 'REQUEST_BODY', 'REQUEST_DONE', 'RESPONSE_HEAD', 'RESPONSE_BODY', 'RESPONSE_DONE']);
  t.ok(ex.isFinished, 'the exchange is over');
  t.ok(ex.requestSent, 'the whole request was written');
});

t.test('a backend closing mid-response: the error names RESPONSE_BODY and the exchange ends CLOSED', async (t) => {
  const be = await rawBackend(t, (sock) => onRequest(sock, 5, () => {
    sock.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n');
    setTimeout(() => { sock.write('only ten.\n'); setTimeout(() => sock.end(), 30); }, 30);
  }));
  const { states, error, ex } = await run(poolFor(t, be.port), POST, Buffer.from('12345'));
  t.same(states, ['REQUEST_READY', 'REQUEST_HEAD', 'REQUEST_BODY', 'REQUEST_DONE', 'RESPONSE_HEAD', 'RESPONSE_BODY', 'CLOSED']);
  t.equal(error?.base, TransportErrorCode.CONNECTION_CLOSED, 'connection closed');
  t.equal(error?.state, ProtocolState.RESPONSE_BODY, 'in RESPONSE_BODY');
  t.equal(error?.code, TransportErrorCode.CONNECTION_CLOSED + ProtocolState.RESPONSE_BODY, 'the code is base + state');
  t.equal(error?.message, 'Connection closed by the backend in RESPONSE_BODY');
  t.equal(ex.state, ProtocolState.CLOSED, 'the exchange ends CLOSED');
});

t.test('a request without a body ended before its connection: REQUEST_HEAD straight to REQUEST_DONE', async (t) => {
  const be = await rawBackend(t, (sock) => onRequest(sock, 0, () => sock.write('HTTP/1.1 204 No Content\r\n\r\n')));
  const get: OutboundRequest = { head: 'GET /x HTTP/1.1\r\nhost: b\r\n\r\n', bodyMode: BodyMode.NONE, isHead: false, retryable: true };
  const { states, error } = await run(poolFor(t, be.port), get, null);
  t.equal(error, null, 'no error');
  t.same(states, ['REQUEST_READY', 'REQUEST_HEAD', 'REQUEST_DONE', 'RESPONSE_HEAD', 'RESPONSE_DONE']);
});

t.test('a reused connection closed before any reply: back to REQUEST_READY once, then sent on a new one', async (t) => {
  let connections = 0;
  const be = await rawBackend(t, (sock) => {
    const n = ++connections;
    // The first connection answers one request, then closes as the next one arrives (a stale keep-alive).
    onRequest(sock, 0, () => {
      sock.write('HTTP/1.1 204 No Content\r\n\r\n');
      if (n === 1) onRequest(sock, 0, () => sock.destroy());
    });
  });
  const pool = poolFor(t, be.port);
  const get: OutboundRequest = { head: 'GET /x HTTP/1.1\r\nhost: b\r\n\r\n', bodyMode: BodyMode.NONE, isHead: false, retryable: true };
  t.equal((await run(pool, get, null)).error, null, 'the first exchange');
  const { states, error } = await run(pool, get, null);
  t.equal(error, null, 'no error reaches the owner');
  t.same(states, ['REQUEST_HEAD', 'REQUEST_DONE', 'REQUEST_HEAD', 'REQUEST_DONE', 'RESPONSE_HEAD', 'RESPONSE_DONE'],
    'sent on the idle connection at once, then again on a new one');
  t.equal(connections, 2, 'over a second connection');
});

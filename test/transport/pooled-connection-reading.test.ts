import t from 'tap';
import { HostPool } from '../../transport/sender/host-pool.js';
import { BodyMode, type SenderHandler } from '../../transport/sender/sender-handler.js';
import type { BackendTransportError } from '../../transport/transport-errors.js';
import { rawBackend, onRequestHead } from '../helpers/backends.js';

// An owner stops the reading of a response (its client is slow) and the response ends in that same read:
// the connection goes back to the pool with its socket paused. It must read again there, or the next
// exchange on it never sees its response (and the pool never sees the backend close it).

interface Outcome { status: number; body: string; error: BackendTransportError | null }

function exchangeOn(pool: HostPool, pushBack: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    let status = 0;
    let body = '';
    const handler: SenderHandler = {
      onConnect() {},
      onRequestSent() {},
      onDrain() {},
      onHeaders(s) { status = s; },
      // The owner's client cannot take more: stop reading (the response ends in this same read).
      onData(chunk) { body += chunk.toString('latin1'); return !pushBack; },
      onComplete() { resolve({ status, body, error: null }); },
      onError(err) { resolve({ status, body, error: err }); },
    };
    const ex = pool.dispatch({ head: 'GET /x HTTP/1.1\r\nhost: b\r\n\r\n', bodyMode: BodyMode.NONE, isHead: false, retryable: true }, handler);
    ex.end();
  });
}

t.test('a connection whose reading the last owner paused reads the next response', async (t) => {
  let n = 0;
  const be = await rawBackend(t, (sock) => {
    const next = (): void => onRequestHead(sock, () => { n++; sock.write(`HTTP/1.1 200 OK\r\ncontent-length: 7\r\n\r\nreply ${n}`); next(); });
    next();
  });
  const pool = new HostPool('test', {
    host: '127.0.0.1', port: be.port, tls: null, proxy: null, maxConnections: 1, keepAlive: true,
    socketTimeoutMs: 60_000, connectTimeoutMs: 5_000, ioBufferSize: 65_536, maxHeaderSize: 16_384,
  }, Buffer.allocUnsafe(65_536));
  t.teardown(() => pool.destroyAll());

  const first = await exchangeOn(pool, true);
  t.same(first, { status: 200, body: 'reply 1', error: null }, 'the first response, pushed back on');
  const second = await Promise.race([
    exchangeOn(pool, false),
    new Promise<string>((r) => setTimeout(() => r('no response within 5 s'), 5_000).unref()),
  ]);
  t.same(second, { status: 200, body: 'reply 2', error: null }, 'the next exchange on the same connection gets its response');
  t.equal(be.connections(), 1, 'over the one pooled connection');
});

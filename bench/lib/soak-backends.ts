/**
 * Failing backends for `npm run soak`, run as a child process of the soak driver so that their work does
 * not share an event loop with the load generators:
 *
 *   node dist/bench/lib/soak-backends.js <resetPort> <slowPort> <garbagePort> <slowMs>
 *
 *   reset    reads the request head, then resets the connection (RST): the gateway answers 502, 101505 + state
 *   slow     reads the request head and answers only after <slowMs> (longer than the gateway's
 *            http.socket.timeout): the gateway answers 504, 101504 + state, and drops the connection
 *   garbage  answers every request with bytes that are not HTTP: the gateway answers 502, 101506 + state
 *
 * Every second it prints a JSON line with what it saw (connections accepted, open now), read by nobody but
 * kept in the log for a post-mortem.
 */
import net from 'node:net';

const [resetPort, slowPort, garbagePort, slowMsArg] = process.argv.slice(2).map(Number);
if (!resetPort || !slowPort || !garbagePort) {
  process.stderr.write('usage: soak-backends.js <resetPort> <slowPort> <garbagePort> <slowMs>\n');
  process.exit(2);
}
const slowMs = slowMsArg || 10_000;

interface Counts { accepted: number; open: number; requests: number }
const counts: Record<'reset' | 'slow' | 'garbage', Counts> = {
  reset: { accepted: 0, open: 0, requests: 0 },
  slow: { accepted: 0, open: 0, requests: 0 },
  garbage: { accepted: 0, open: 0, requests: 0 },
};

/** Calls `onHead` once per complete request head seen on the socket (bodies are not expected: GET only). */
function serve(kind: keyof typeof counts, port: number, onHead: (s: net.Socket) => void): void {
  const server = net.createServer((s) => {
    const c = counts[kind];
    c.accepted++;
    c.open++;
    s.once('close', () => { c.open--; });
    s.on('error', () => { /* the gateway may reset as well */ });
    let pending = '';
    s.on('data', (chunk) => {
      pending += chunk.toString('latin1');
      let i: number;
      while ((i = pending.indexOf('\r\n\r\n')) >= 0) {
        pending = pending.slice(i + 4);
        c.requests++;
        onHead(s);
      }
    });
  });
  server.listen(port, '127.0.0.1');
}

serve('reset', resetPort, (s) => { if (!s.destroyed) s.resetAndDestroy(); });

serve('slow', slowPort, (s) => {
  const t = setTimeout(() => {
    if (!s.destroyed) s.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\n\r\n{"late":1}\n');
  }, slowMs);
  s.once('close', () => clearTimeout(t));
});

serve('garbage', garbagePort, (s) => {
  if (!s.destroyed) s.end('THIS IS NOT HTTP\0\0\0\r\n\r\n');
});

setInterval(() => { process.stdout.write(JSON.stringify({ t: new Date().toISOString(), ...counts }) + '\n'); }, 1000).unref();
process.on('SIGTERM', () => process.exit(0));

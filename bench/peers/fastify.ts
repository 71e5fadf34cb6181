import path from 'node:path';
import { PROJECT, spawnTracked, waitPort } from '../lib/products.js';
import { NEVER_TRIPPING_LIMIT, trackedPeer, type Peer } from './peer.js';

/**
 * The fastify stack (bench/fastify-proxy.ts) in its own process, or a node:cluster of `workers`:
 * @fastify/http-proxy for pass-through, @fastify/jwt + @fastify/rate-limit in front of it under /secure.
 * `rateLimit`: calls a minute per client (default one the bench never reaches; tests set a small one).
 */
export async function startFastify(o: { port: number; upstream: number; workers: number; publicKeyPem: string; rateLimit?: number }): Promise<Peer> {
  const c = spawnTracked(process.execPath, [path.join(PROJECT, 'dist/bench/fastify-proxy.js'), String(o.port), String(o.upstream), String(o.workers), o.publicKeyPem, String(o.rateLimit ?? NEVER_TRIPPING_LIMIT)]);
  await waitPort(o.port);
  return trackedPeer('fastify', c, `http://127.0.0.1:${o.port}`, `http://127.0.0.1:${o.port}/secure`);
}

import path from 'node:path';
import { PROJECT, spawnTracked, waitPort } from '../lib/products.js';
import { trackedPeer, type Peer } from './peer.js';

/** The floor of Sluice's stack (bench/floor-proxy.ts): its transport with no gateway logic; GETs only. */
export async function startFloorProxy(port: number, upstream: number, threads: number): Promise<Peer> {
  const c = spawnTracked(process.execPath, [path.join(PROJECT, 'dist/bench/floor-proxy.js'), String(port), String(upstream), String(threads)]);
  await waitPort(port);
  return trackedPeer('floor', c, `http://127.0.0.1:${port}`);
}

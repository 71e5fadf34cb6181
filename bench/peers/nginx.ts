import fs from 'node:fs';
import path from 'node:path';
import { spawnTracked, tmpDir, waitPort } from '../lib/products.js';
import { trackedPeer, type Peer } from './peer.js';

/**
 * nginx (Debian's 1.22) as a reverse proxy: `workers` worker processes, upstream keep-alive, no buffering
 * of requests or responses (streamed both ways, as Sluice's pass-through), no access log.
 */
export function nginxProxyConfig(o: { port: number; upstream: number; workers: number; dir: string }): string {
  return `worker_processes ${o.workers};
daemon off; pid ${o.dir}/nginx.pid; error_log ${o.dir}/error.log;
events { worker_connections 8192; }
http { access_log off; client_body_temp_path ${o.dir}/body; proxy_temp_path ${o.dir}/proxy; client_max_body_size 2g; keepalive_requests 1000000;
upstream up { server 127.0.0.1:${o.upstream}; keepalive 256; keepalive_requests 1000000; }
server { listen 127.0.0.1:${o.port} reuseport; location / { proxy_pass http://up; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_buffering off; proxy_request_buffering off; } } }`;
}

export async function startNginxProxy(port: number, upstream: number, workers: number): Promise<Peer> {
  const dir = tmpDir('sluice-bench-nginx-px-');
  fs.writeFileSync(path.join(dir, 'nginx.conf'), nginxProxyConfig({ port, upstream, workers, dir }));
  const c = spawnTracked('nginx', ['-c', path.join(dir, 'nginx.conf')]);
  await waitPort(port);
  return trackedPeer('nginx', c, `http://127.0.0.1:${port}`);
}


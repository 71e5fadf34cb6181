import fs from 'node:fs';
import path from 'node:path';
import { spawnTracked, tmpDir, waitPort } from './products.js';

/**
 * A second nginx backend for the soak's slow clients: `GET /big` is a file of `bigMiB` MiB (larger than
 * what the loopback socket buffers hold, so that a client that does not read makes the gateway apply
 * back-pressure to its backend), any other path the same small JSON as startNginxBackend.
 */
export async function startNginxBig(port: number, bigMiB: number): Promise<void> {
  const dir = tmpDir('sluice-soak-nginx-big-');
  fs.chmodSync(dir, 0o755);
  fs.writeFileSync(path.join(dir, 'big.bin'), Buffer.alloc(bigMiB * 1024 * 1024, 98), { mode: 0o644 });
  fs.writeFileSync(path.join(dir, 'nginx.conf'), `worker_processes 1;
daemon off; pid ${dir}/nginx.pid; error_log ${dir}/error.log;
events { worker_connections 4096; }
http { access_log off; client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; keepalive_requests 1000000;
server { listen 127.0.0.1:${port} reuseport; root ${dir};
  location = /big { default_type application/octet-stream; try_files /big.bin =404; }
  location / { default_type application/json; return 200 '{"hello":"world","n":42}'; }
} }`);
  spawnTracked('nginx', ['-c', path.join(dir, 'nginx.conf')]);
  await waitPort(port);
}

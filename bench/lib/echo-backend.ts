import fs from 'node:fs';
import path from 'node:path';
import { spawnTracked, tmpDir, waitPort } from './products.js';

/**
 * An echo backend for the reference system's HTTPS scenario (a POST whose body comes back): HAProxy with
 * one thread answering every request itself with the request body (`option http-buffer-request` waits for
 * the body, up to its 16 KiB buffer; `http-request return` sends it back). Written in C, so it takes
 * little of the two cores the gateway and the load generator share; the reference system's run used a
 * Netty echo service on its own machine.
 */
export function echoBackendConfig(port: number): string {
  return `global
  nbthread 1
  maxconn 8000
defaults
  mode http
  maxconn 8000
  timeout client 60s
frontend echo
  bind 127.0.0.1:${port}
  option http-buffer-request
  http-request return status 200 content-type application/json lf-string "%[req.body]"
`;
}

export async function startEchoBackend(port: number): Promise<void> {
  const dir = tmpDir('sluice-bench-echo-');
  fs.writeFileSync(path.join(dir, 'echo.cfg'), echoBackendConfig(port));
  spawnTracked('haproxy', ['-db', '-f', path.join(dir, 'echo.cfg')], { log: path.join(dir, 'echo.log') });
  await waitPort(port);
}

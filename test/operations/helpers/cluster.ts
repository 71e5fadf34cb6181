import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeHome, type TestHome } from '../../helpers/home.js';
import { freeOffset, startSluice, waitPort, type SluiceProcess } from '../../fixtures/sluice-process.js';
import { selfSignedCertificate } from '../../../bench/lib/certificate.js';
import { startRedis, type RedisServer } from '../../fixtures/redis-server.js';

type Tap = { teardown(fn: () => unknown): void };

/** A key and self-signed certificate for localhost / 127.0.0.1 (PEM), and the certificate alone to trust. */
export function controlPlaneCertificate(t: Tap): { keyStore: string; trust: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-cp-cert-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return selfSignedCertificate(dir);
}

/** Ports back to the catalog defaults, so that server.offset places them (as an operator's homes would). */
export function offsetPorts(offset: number): Record<string, unknown> {
  return {
    server: { offset },
    transport: {
      passthru_http: { listener: { parameters: { port: 8280 } } },
      passthru_https: { listener: { parameters: { port: 8243 } } },
      http: { properties: { port: 9763 } },
      https: { properties: { port: 9443 } },
    },
  };
}

function merge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  for (const [k, v] of Object.entries(b)) {
    const cur = a[k];
    if (v && typeof v === 'object' && !Array.isArray(v) && cur && typeof cur === 'object' && !Array.isArray(cur)) merge(cur as Record<string, unknown>, v as Record<string, unknown>);
    else a[k] = v;
  }
  return a;
}

export interface Node {
  readonly home: TestHome;
  readonly offset: number;
  proc: SluiceProcess;
  readonly gw: string;
  readonly https: string;
  readonly http: string;
  restart(t: Tap): Promise<void>;
}

/** A home on its own offset, then `node bin/sluice.js start --home DIR`; resolves when `waitFor` (a port) is open. */
export async function startProcessNode(t: Tap, conf: Record<string, unknown>, waitFor: 'servlet' | 'gateway'): Promise<Node> {
  const offset = await freeOffset();
  const home = await makeHome(merge(offsetPorts(offset), conf));
  t.teardown(() => home.cleanup());
  const port = waitFor === 'servlet' ? 9443 + offset : 8280 + offset;
  const node: Node = {
    home, offset,
    proc: startSluice(t, home.dir),
    gw: `http://127.0.0.1:${8280 + offset}`,
    https: `https://127.0.0.1:${9443 + offset}`,
    http: `http://127.0.0.1:${9763 + offset}`,
    async restart(tt: Tap) {
      node.proc = startSluice(tt, home.dir);
      await waitPort(port, 40000).catch((e: Error) => { throw new Error(`${e.message}\n${node.proc.output().slice(-2000)}\n${logTail(home)}`); });
    },
  };
  await waitPort(port, 40000).catch((e: Error) => { throw new Error(`${e.message}\n${node.proc.output().slice(-2000)}\n${logTail(home)}`); });
  return node;
}

export function logTail(home: TestHome): string {
  const f = path.join(home.dir, 'repository/logs/sluice.log');
  return fs.existsSync(f) ? fs.readFileSync(f, 'utf8').slice(-3000) : '(no log)';
}

/** deployment.toml keys of a gateway-worker following the control plane at `cpHttps`. */
export function workerConf(cpHttps: string, trust: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const service = cpHttps.replace('127.0.0.1', 'localhost') + '/services/';
  return merge({
    server: { server_role: 'gateway-worker' },
    passthru_http: { io_threads_per_reactor: 1 },
    apim: {
      event_hub: { enable: true, service_url: service, event_listening_endpoints: [service], username: 'admin', password: 'admin' },
      key_manager: { service_url: service },
      sync_runtime_artifacts: { gateway: { deployment_retry_duration: 500, max_retry_count: 3, retry_progression_factor: 2.0 } },
      gateway_notification: { heartbeat: { notify_interval: '500ms' }, deployment_ack: { batch_interval: '200ms' } },
    },
    transport: { passthru_https: { sender: { trust_store: { file_name: trust, type: 'PEM' } } } },
  }, extra);
}

/** deployment.toml keys of a control plane (api-publisher, with the resident key manager) serving TLS from `keyStore`. */
export function controlPlaneConf(keyStore: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return merge({
    server: { server_role: 'api-publisher' },
    transport: { passthru_https: { listener: { key_store: { file_name: keyStore, type: 'PEM', password: '', key_password: '' } } } },
    apim: { gateway_notification: { cleanup: { expiry_time: '2s' } } },
  }, extra);
}

/**
 * A control plane and one gateway-worker with [apim.redis_config] events on a redis-server of their own; the
 * worker's safety poll is a minute away, so only Redis (or the long poll when Redis is down) brings changes.
 */
export async function redisEventsCluster(t: Tap): Promise<{ redis: RedisServer; cp: Node; gw: Node }> {
  const redis = await startRedis(t);
  const cert = controlPlaneCertificate(t);
  const redisConf = { apim: { redis_config: { enable: true, url: redis.url } } };
  const cp = await startProcessNode(t, controlPlaneConf(cert.keyStore, redisConf), 'servlet');
  const gw = await startProcessNode(t, workerConf(cp.https, cert.trust, { ...redisConf, sluice: { event_hub: { poll_interval: '60s' } } }), 'gateway');
  return { redis, cp, gw };
}

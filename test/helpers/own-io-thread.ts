import type { Logger } from 'pino';
import { freePort } from './home.js';
import type { TestSluice } from './sluice.js';
import { GatewayThread } from '../../engine/gateway/gateway-thread.js';
import { defaultCodecs } from '../../mediation/index.js';
import type { IoThreadDataSource } from '../../engine/runtime/io-threads.js';

/**
 * A GatewayThread in the test's own process with the init a real io thread of `s` receives, on a port of its
 * own (plain HTTP only), stopped at the test's end: a test can change its pipeline, then `listen()`.
 */
export async function ownIoThread(t: { teardown(fn: () => unknown): void }, s: TestSluice, log: Logger): Promise<{ thread: GatewayThread; port: number }> {
  const data = await (s.node.gateway!.threads as unknown as { source: IoThreadDataSource }).source(0);
  const port = await freePort();
  const init = { ...data.gateway, listeners: { http: { ...data.gateway.listeners.http, port }, https: { ...data.gateway.listeners.https, enabled: false } } };
  const thread = new GatewayThread(init, log, defaultCodecs());
  t.teardown(() => thread.stop(0));
  return { thread, port };
}

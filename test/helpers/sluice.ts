import { loadConfig } from '../../conf/loader.js';
import { startNode, type RunningNode } from '../../engine/runtime/node.js';
import { makeHome, type TestHome } from './home.js';

export interface TestSluice {
  readonly home: TestHome;
  readonly node: RunningNode;
  /** `http://127.0.0.1:<passthru http port><path>`. */
  url(path: string): string;
  httpsUrl(path: string): string;
  stop(): Promise<void>;
}

/** Starts Sluice in this process on a throwaway home (see makeHome); `t.teardown` stops it. */
export async function startSluice(
  t: { teardown(fn: () => unknown): void },
  conf: Record<string, unknown> = {},
  files: Record<string, string> = {},
): Promise<TestSluice> {
  const home = await makeHome(conf, files);
  const config = loadConfig(home.dir);
  const node = await startNode(config, { handleSignals: false });
  let stopped = false;
  const s: TestSluice = {
    home, node,
    url: (p) => `http://127.0.0.1:${home.ports.http}${p}`,
    httpsUrl: (p) => `https://127.0.0.1:${home.ports.https}${p}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      await node.stop();
    },
  };
  t.teardown(async () => { await s.stop(); home.cleanup(); });
  return s;
}

import { logView } from '../../../conf/typed-config.js';
import { LOG_LEVEL_STATE_KEY, TELEMETRY_STATE_KEY } from '../../gateway/telemetry/types.js';
import { TelemetryHub } from '../../operations/telemetry-hub.js';
import { startPizzaBackend } from '../../sample/pizza-backend.js';
import type { NodeState } from './node-state.js';

/** The telemetry hub (access log, analytics, tracing, metrics), and its extension: settings and log level to every io thread. */
export function startTelemetry(n: NodeState): void {
  const telemetry = new TelemetryHub(n.log);
  telemetry.configure(n.config);
  n.telemetry = telemetry;
  n.stops.push(() => telemetry.close());
  n.extensions.push({
    name: 'telemetry',
    initialState: () => ({ [TELEMETRY_STATE_KEY]: telemetry.settings(), [LOG_LEVEL_STATE_KEY]: logView(n.config).level }),
  });
}

/** `npm start`'s sample pizza backend on 127.0.0.1:9080 (--with-sample-backend). */
export async function startSampleBackend(n: NodeState): Promise<void> {
  if (!n.opts.sampleBackend) return;
  const sample = await startPizzaBackend();
  n.log.info({ url: `http://127.0.0.1:${sample.port}/pizzashack/v1/menu` }, 'sample pizza backend listening');
  n.stops.push(() => sample.close());
}

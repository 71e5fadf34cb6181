import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '../log/logger.js';
import { loadUws } from '../../transport/uws.js';
import { GatewayThread } from './gateway-thread.js';
import { loadCodecs, defaultCodecs, type Codecs } from '../../mediation/index.js';
import type { FromIoThread, IoThreadData, ToIoThread } from './io-thread-protocol.js';

/** Entry point of an io thread (a worker_thread running one uWS event loop). */
const data = workerData as IoThreadData;
const port = parentPort!;
const post = (m: FromIoThread): void => port.postMessage(m);
const log = createLogger({ ...data.log, thread: `io-${data.gateway.index}` });

let thread: GatewayThread;
let codecs: Codecs;
try {
  codecs = await loadCodecs(data.codecs);
} catch (err) {
  // The main thread loaded the same modules before starting us; a failure here is unexpected but not fatal.
  log.error({ err: (err as Error).message }, 'custom message builders/formatters failed to load; using the built-in ones');
  codecs = defaultCodecs();
}
try {
  const { uws, native } = loadUws(data.gateway.passthru.allowSlowFallback);
  if (!native) log.warn('running on the uWebSockets.js pure-JS fallback (allow_slow_fallback = true): expect a fraction of the throughput');
  thread = new GatewayThread(uws, data.gateway, log, codecs, (name, payload) => post({ type: 'extension', name, payload }));
  thread.listen().then(
    (ports) => post({ type: 'ready', ports, native }),
    (err: Error) => post({ type: 'fatal', message: err.message }),
  );
} catch (err) {
  post({ type: 'fatal', message: (err as Error).message });
}

port.on('message', (m: ToIoThread) => {
  switch (m.type) {
    case 'apis':
      thread.deployApis(m.apis);
      post({ type: 'ack', ack: m.ack });
      break;
    case 'sequences':
      thread.deploySequences(m.set);
      post({ type: 'ack', ack: m.ack });
      break;
    case 'state':
      thread.state.apply(m.key, m.value);
      post({ type: 'ack', ack: m.ack });
      break;
    case 'stop':
      void thread.stop(m.deadlineMs).then(() => {
        log.flush();
        post({ type: 'stopped' });
      });
      break;
  }
});

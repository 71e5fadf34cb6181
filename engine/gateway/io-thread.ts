import { parentPort, workerData } from 'node:worker_threads';
import { createLogger, setLogLevel } from '../log/logger.js';
import { GatewayThread } from './gateway-thread.js';
import { loadCodecs, defaultCodecs, type Codecs } from '../../mediation/index.js';
import type { FromIoThread, IoThreadData, ToIoThread } from './io-thread-protocol.js';
import { CallRecorder } from './telemetry/recorder.js';
import { LOG_LEVEL_STATE_KEY, TELEMETRY_STATE_KEY, type TelemetrySettings } from './telemetry/types.js';

/** Entry point of an io thread (a worker_thread running one event loop with its front door). */
const data = workerData as IoThreadData;
const port = parentPort!;
const post = (m: FromIoThread): void => port.postMessage(m);
const log = createLogger({ ...data.log, thread: `io-${data.gateway.index}` });

/** How long calls in flight on a failed io thread may take to finish before it is restarted. */
const FAILED_STOP_MS = 2000;

let thread: GatewayThread;
let recorder: CallRecorder | undefined;
let codecs: Codecs;
try {
  codecs = await loadCodecs(data.codecs);
} catch (err) {
  // The main thread loaded the same modules before starting us; a failure here is unexpected but not fatal.
  log.error({ err: (err as Error).message }, 'custom message builders/formatters failed to load; using the built-in ones');
  codecs = defaultCodecs();
}
try {
  thread = new GatewayThread(data.gateway, log, codecs, (name, payload) => post({ type: 'extension', name, payload }));
  const rec = new CallRecorder(thread, (batch) => post({ type: 'telemetry', batch }), log);
  recorder = rec;
  thread.state.on(TELEMETRY_STATE_KEY, (v) => {
    const settings = v as TelemetrySettings;
    rec.apply(settings);
    thread.setTracing(settings.tracing);
  });
  thread.state.on(LOG_LEVEL_STATE_KEY, (v) => setLogLevel(log, v as string));
  thread.listen().then(
    (ports) => post({ type: 'ready', ports }),
    (err: Error) => post({ type: 'fatal', message: err.message }),
  );
} catch (err) {
  post({ type: 'fatal', message: (err as Error).message });
}

// An exception nothing caught is a bug; left alone it would end this worker with its calls in flight cut.
// Instead: stop like a
// graceful stop (listeners closed, calls in flight finished up to FAILED_STOP_MS, sockets closed) and let
// the main thread start a fresh io thread.
let failing = false;
const onUncaught = (err: unknown): void => {
  const e = err instanceof Error ? err : new Error(String(err));
  log.fatal({ err: e.message, stack: e.stack }, 'uncaught exception in an io thread: it stops and the main thread restarts it');
  if (failing || thread === undefined) return;
  failing = true;
  post({ type: 'failed', message: e.message });
  void thread.stop(FAILED_STOP_MS).then(() => {
    recorder?.stop();
    log.flush();
    post({ type: 'stopped' });
  });
};
process.on('uncaughtException', onUncaught);
process.on('unhandledRejection', onUncaught);

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
    case 'flush':
      recorder?.flush(true);
      post({ type: 'ack', ack: m.ack });
      break;
    case 'stop':
      void thread.stop(m.deadlineMs).then(() => {
        recorder?.stop();
        log.flush();
        post({ type: 'stopped' });
      });
      break;
  }
});

import type { NodeState } from './node-state.js';

/**
 * SIGINT and SIGTERM, handled from the start: one arriving while the roles start stops the node once they
 * have (`stopWhenStarted`). SIGXFSZ is ignored, so that a file reaching the size limit (ulimit -f) fails its
 * write (EFBIG, handled like a full disk) instead of killing the process. A timer keeps the process alive
 * while the node runs.
 */
export class StopSignals {
  private asked = false;
  private onStop: (() => void) | null = null;
  private keepAlive: NodeJS.Timeout | null = null;

  constructor(n: NodeState) {
    if (n.opts.handleSignals === false) return;
    const onSignal = (sig: string): void => {
      n.log.info({ signal: sig }, 'stopping: finishing calls in flight');
      if (this.onStop) this.onStop(); else this.asked = true;
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    process.on('SIGXFSZ', () => {});
    this.keepAlive = setInterval(() => {}, 1 << 30);
  }

  /** The node has started: a signal now calls `stop`, and one that came during the start does so at once. */
  stopWhenStarted(stop: () => void): void {
    this.onStop = stop;
    if (this.asked) stop();
  }

  /** The node is down (stopped, or its start failed): the process may end. */
  release(): void {
    if (this.keepAlive) clearInterval(this.keepAlive);
  }
}

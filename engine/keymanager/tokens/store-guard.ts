import type { Logger } from '../../log/logger.js';
import { RepeatedWarnings } from '../../log/repeated-warnings.js';
import { isUnavailable } from '../../store/index.js';
import { OAuthError, ServerError, TemporarilyUnavailableError } from '../errors.js';

/** Store failures become 503 (unreachable) or 500; OAuth errors pass through. */
export class StoreGuard {
  /** Store failures come once per request while they last: one line per window, with a count. */
  private readonly warnings: RepeatedWarnings;

  constructor(log: Logger) {
    this.warnings = new RepeatedWarnings(log);
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    try { return await fn(); } catch (err) { throw this.error(err); }
  }

  error(err: unknown): Error {
    if (err instanceof OAuthError) return err;
    const e = err as Error & { code?: string };
    if (isUnavailable(err)) {
      // A full disk, a lost database or a directory that is down fails every request until it is fixed: a
      // line per window, not per request.
      this.warnings.error('store unavailable', { err: e.message }, 'token or user store unavailable: answering 503 temporarily_unavailable');
      return new TemporarilyUnavailableError('the token or user store is unavailable; try again');
    }
    this.warnings.error(`failure ${e?.name ?? ''} ${e?.code ?? ''}`, { err: e?.stack ?? String(err) }, 'token service failure');
    return new ServerError('internal error; see the key manager log');
  }

  /** Writes the warnings still counted (the key manager stops). */
  stop(): void {
    this.warnings.stop();
  }
}

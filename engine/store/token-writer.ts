import { UniqueViolationError } from './db.js';
import type { TokenRecord, TokenTable } from './tokens.js';

interface Pending {
  readonly record: TokenRecord;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

/**
 * How issued tokens reach the store ([session_data.persistence] persistence_pool_size).
 *
 * - 0 (the default): each token is inserted on its own, before the answer.
 * - N > 0: tokens are queued and written in batches (one transaction per batch) by up to N writers
 *   running at once. The answer still waits for its batch to commit: a token a client received is always
 *   in the store (kill -9 loses none), while many concurrent requests share one commit.
 *
 * A batch that fails on a key clash is retried row by row, so that only the clashing request sees the
 * UniqueViolationError (and retries with a new token).
 */
export class TokenWriter {
  private readonly queue: Pending[] = [];
  private active = 0;
  private closed = false;

  constructor(private readonly tokens: TokenTable, private readonly writers: number, private readonly batchSize = 256) {}

  write(record: TokenRecord): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the token writer is closed'));
    if (this.writers <= 0) return this.tokens.insert(record);
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.active < this.writers && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.batchSize);
      this.active++;
      void this.flush(batch).finally(() => {
        this.active--;
        this.pump();
      });
    }
  }

  private async flush(batch: Pending[]): Promise<void> {
    if (batch.length === 1) {
      const p = batch[0]!;
      try { await this.tokens.insert(p.record); p.resolve(); } catch (err) { p.reject(err); }
      return;
    }
    try {
      await this.tokens.insertMany(batch.map((p) => p.record));
      for (const p of batch) p.resolve();
    } catch (err) {
      if (!(err instanceof UniqueViolationError)) {
        for (const p of batch) p.reject(err);
        return;
      }
      for (const p of batch) {
        try { await this.tokens.insert(p.record); p.resolve(); } catch (e) { p.reject(e); }
      }
    }
  }

  /** Waits for queued tokens to be written; later writes are refused. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.active > 0 || this.queue.length > 0) await new Promise((r) => setTimeout(r, 5));
  }
}

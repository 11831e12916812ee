import type { ApiTokenStore } from '../db/api-tokens.js';
import type { Logger } from '../logger.js';

/** How often a token's `lastUsedAt` is written at most (the database holds it across instances). */
export const LAST_USED_EVERY_MS = 60_000;
/** How long uses wait to be written together. */
const FLUSH_AFTER_MS = 1_000;

/**
 * `lastUsedAt`, off the request path: a use marks the token (once a minute per token at most) and
 * the marks are written together a second later, in one statement. A failed write is logged and
 * dropped (the next use a minute on writes again): a background loop never throws.
 */
export class TokenUses {
  private readonly pending = new Map<string, Date>();
  private readonly written = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly deps: { store: ApiTokenStore; now: () => Date; log: Logger }) {}

  used(tokenId: string): void {
    if (this.stopped) return;
    const now = this.deps.now();
    const last = this.written.get(tokenId);
    if (last !== undefined && now.getTime() - last < LAST_USED_EVERY_MS) return;
    this.written.set(tokenId, now.getTime());
    this.pending.set(tokenId, now);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, FLUSH_AFTER_MS).unref();
  }

  /** Writes what is pending; never throws. */
  flush(): Promise<void> {
    const batch = [...this.pending].map(([id, at]) => ({ id, at }));
    this.pending.clear();
    // Marks older than the minute no longer hold anything back: the map stays as small as the tokens in use.
    const horizon = this.deps.now().getTime() - LAST_USED_EVERY_MS;
    for (const [id, at] of this.written) if (at <= horizon) this.written.delete(id);
    if (batch.length === 0) return this.flushing;
    this.flushing = this.flushing.then(() =>
      this.deps.store.touch(batch).catch((err: unknown) => this.deps.log.warn({ err, tokens: batch.length }, 'could not record when tokens were last used')),
    );
    return this.flushing;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}

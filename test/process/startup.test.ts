import { describe, expect, it } from 'vitest';
import { spawnCronql } from '../support/processes.js';

/** A start that fails says why in one line, and exits. */
describe('a start that fails', () => {
  it('with an unreachable DATABASE_URL: exits 1 with one line naming the cause, no stack trace', async () => {
    const started = spawnCronql({ databaseUrl: 'postgresql://cronql:x@127.0.0.1:9/cronql', env: { CRONQL_DB_CONNECT_TIMEOUT_MS: '1000' } });
    const err = await started.then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/cronql exited \(1\) before listening/);
    const lines = err!.message.split('\n').filter((l) => l.startsWith('cronql: could not start:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/ECONNREFUSED|connect/i);
    expect(err!.message).not.toMatch(/^\s+at /m);
  }, 30_000);
});

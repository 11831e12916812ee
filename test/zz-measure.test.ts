import 'reflect-metadata';
import { it } from 'vitest';
import { createTestDatabase } from './support/db.js';
import { migrateDatabase } from '../src/db/orm.js';

it('measures per-file setup', async () => {
  const rows: string[] = [];
  for (let i = 0; i < 6; i++) {
    const t0 = performance.now();
    const db = await createTestDatabase();
    const t1 = performance.now();
    const applied = await migrateDatabase(db.url);
    const t2 = performance.now();
    rows.push(`create ${(t1 - t0).toFixed(0)} ms, migrate ${(t2 - t1).toFixed(0)} ms (${applied.length} applied), total ${(t2 - t0).toFixed(0)} ms`);
    await db.drop();
  }
  console.log(rows.join('\n'));
  const t0 = performance.now();
  const many = await Promise.all(Array.from({ length: 10 }, () => createTestDatabase()));
  console.log(`10 at once: ${(performance.now() - t0).toFixed(0)} ms`);
  await Promise.all(many.map((d) => d.drop()));
}, 120_000);

import { describe, expect, it } from 'vitest';
import { createCronql } from '../src/app.js';
import { DEFAULTS, loadConfig, TUNABLES, type Tunable } from '../src/config.js';
import { OptionsError, optionsFromConfig, resolveOptions } from '../src/options.js';

/**
 * `createCronql` checks its options once, by the same bounds as the environment, and fills in
 * every default; a bad option fails at once with an error that names it, before anything starts.
 */
describe('createCronql options', () => {
  const names = Object.keys(TUNABLES) as Tunable[];

  it('fills in every default', () => {
    const o = resolveOptions({});
    for (const name of names) expect(o[name], name).toBe(DEFAULTS[name]);
    expect(o).toMatchObject({ role: 'all', dataDir: './.cronql', listen: true });
    expect(o.instanceId).toMatch(/-\d+-[0-9a-f]{6}$/);
  });

  it('accepts every tunable at its bounds, and rejects every other form (generated)', () => {
    for (const name of names) {
      const { min, max } = TUNABLES[name];
      const within = name === 'lostAfterMs' ? { heartbeatMs: 100 } : name === 'heartbeatMs' ? { lostAfterMs: 86_400_000 } : {};
      for (const good of [min, max, Math.floor((min + max) / 2)]) {
        expect(resolveOptions({ ...within, [name]: good })[name], `${name}=${good}`).toBe(good);
      }
      const bad: unknown[] = [min - 1, max + 1, min + 0.5, -1, Number.NaN, Number.POSITIVE_INFINITY, '5000', null, true, {}, [], 1e21];
      for (const value of bad) {
        if (value === -1 && min - 1 === -1) continue; // same as min - 1
        let thrown: unknown;
        try {
          resolveOptions({ ...within, [name]: value } as never);
        } catch (err) {
          thrown = err;
        }
        expect(thrown, `${name}=${String(value)}`).toBeInstanceOf(OptionsError);
        expect((thrown as OptionsError).option).toBe(name);
        expect((thrown as Error).message).toContain(`createCronql: ${name} must be an integer between ${min} and ${max}`);
      }
    }
  });

  it('holds the cross rule and the other options to their rules', () => {
    expect(() => resolveOptions({ heartbeatMs: 1_000, lostAfterMs: 2_999 })).toThrow(/lostAfterMs must be at least 3 × the heartbeat \(3000\)/);
    expect(resolveOptions({ heartbeatMs: 1_000, lostAfterMs: 3_000 }).lostAfterMs).toBe(3_000);
    expect(() => resolveOptions({ role: 'worker' as never })).toThrow(/role must be one of all, api, scheduler/);
    expect(() => resolveOptions({ instanceId: '' })).toThrow(/instanceId/);
    expect(() => resolveOptions({ instanceId: 'x'.repeat(201) })).toThrow(/instanceId/);
    for (const url of ['mysql://x/y', 'not a url', '', 42 as never]) {
      expect(() => resolveOptions({ databaseUrl: url }), String(url)).toThrow(/databaseUrl must be a postgres/);
    }
    expect(() => resolveOptions({ alertWebhookUrl: 'ftp://x' })).toThrow(/alertWebhookUrl/);
  });

  it('npm start hands every tunable it read from the environment to createCronql (none is read, checked, then dropped)', () => {
    // Each variable set to a value that is not its default (within its bounds and the cross rule).
    const env: Record<string, string> = { CRONQL_PUBLIC_URL: 'https://cron.example.com', CRONQL_ALERT_WEBHOOK_URL: 'https://hooks.example.com/x' };
    const expected: Partial<Record<Tunable, number>> = {};
    for (const name of names) {
      const { env: variable, min, max }: { env: string; min: number; max: number } = TUNABLES[name];
      const byDefault: number = DEFAULTS[name];
      const value = name === 'lostAfterMs' ? 86_400_000 : byDefault === min ? min + 1 : Math.min(max, byDefault) - 1;
      env[variable] = String(value);
      expected[name] = value;
    }
    const resolved = resolveOptions(optionsFromConfig(loadConfig(env)));
    for (const name of names) expect(resolved[name], `${TUNABLES[name].env} → ${name}`).toBe(expected[name]);
    expect(resolved).toMatchObject({ runLogRetentionDays: 29, auditRetentionDays: 399, publicUrl: 'https://cron.example.com', alertWebhookUrl: 'https://hooks.example.com/x' });
  });

  it('fails at createCronql, before anything starts', () => {
    expect(() => createCronql({ heartbeatMs: 0 })).toThrow(OptionsError);
  });
});

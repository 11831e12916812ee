import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { ConfigError } from '../src/errors.js';

describe('configuration', () => {
  it('has the defaults of docs/configuration.md', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 4000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      role: 'all',
      staleAfterMs: 900_000,
      httpAllowPrivate: false,
      maxPayloadBytes: 65_536,
    });
    expect(c.dataDir.endsWith('.cronql')).toBe(true);
    expect(c.instanceId).toMatch(/^.+-\d+-[0-9a-f]{6}$/);
  });

  it('reads every variable', () => {
    const c = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://u:p@db:5432/cronql',
      CRONQL_DATA_DIR: '/var/lib/cronql',
      CRONQL_ADMIN_TOKEN: 'a'.repeat(32),
      CRONQL_VIEWER_TOKEN: 'v'.repeat(32),
      CRONQL_TARGETS: './targets.js',
      CRONQL_ROLE: 'scheduler',
      CRONQL_INSTANCE_ID: 'worker-1',
      CRONQL_STALE_AFTER_MS: '60000',
      CRONQL_HTTP_ALLOW_PRIVATE: 'true',
      CRONQL_SHUTDOWN_GRACE_MS: '5000',
      CRONQL_MAX_PAYLOAD_BYTES: '1024',
    });
    expect(c).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: 'postgres://u:p@db:5432/cronql',
      dataDir: '/var/lib/cronql',
      targetsModule: './targets.js',
      role: 'scheduler',
      instanceId: 'worker-1',
      staleAfterMs: 60_000,
      httpAllowPrivate: true,
      shutdownGraceMs: 5_000,
      maxPayloadBytes: 1_024,
    });
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'not a url'],
    ['CRONQL_ROLE', 'worker'],
    ['CRONQL_STALE_AFTER_MS', '-5'],
    ['CRONQL_HTTP_ALLOW_PRIVATE', 'maybe'],
    ['CRONQL_ADMIN_TOKEN', 'short'],
    ['CRONQL_SHUTDOWN_GRACE_MS', '1.5'],
    ['CRONQL_MAX_PAYLOAD_BYTES', '0'],
    ['CRONQL_HEARTBEAT_MS', '50'],
    ['CRONQL_LOST_AFTER_MS', '1000'],
    ['CRONQL_MISFIRE_GRACE_MS', '999'],
    ['CRONQL_DB_CONNECT_TIMEOUT_MS', 'soon'],
    ['CRONQL_DB_QUERY_TIMEOUT_MS', '0'],
    ['CRONQL_MAX_SUBSCRIPTIONS_PER_CONNECTION', '0'],
    ['CRONQL_MAX_CONNECTIONS', '-1'],
    ['CRONQL_MAX_RESPONSE_BYTES', '10'],
    ['CRONQL_RETENTION_DAYS', '-1'],
    ['CRONQL_ALERT_WEBHOOK_URL', 'ftp://hooks.example.com'],
    ['CRONQL_ALERT_WEBHOOK_URL', 'not a url'],
    ['CRONQL_CORS_ORIGINS', 'https://app.example.com/path'],
    ['CRONQL_CORS_ORIGINS', 'app.example.com'],
  ])('rejects %s=%s with one line naming the variable', (name, value) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message.startsWith(`${name}: `)).toBe(true);
    expect((error as ConfigError).message).not.toContain('\n');
  });
});

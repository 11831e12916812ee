#!/usr/bin/env node
/**
 * The container image's steps, without a container engine (`npm run test:image`; docs/operations.md,
 * "Containers and Kubernetes"). It reads the Dockerfile and performs what its runtime stage does,
 * in a clean temporary directory, as a non-root user (nobody, uid 65534, with a HOME of its own):
 *
 * 1. the build stage's packing step (its last RUN) in this checkout: the tarball `npm pack` makes;
 * 2. the runtime stage's install step (the RUN with `npm ci --omit=dev`) as written, its absolute
 *    paths (/app, /tmp/pack, /data) mapped into the temporary directory;
 * 3. its CMD with its ENV, plus DATABASE_URL of a PostgreSQL this script starts;
 * 4. /readyz answers 200 and the HEALTHCHECK's own command exits 0; the process's uid is not 0;
 * 5. a run of the `sleep` target is RUNNING when SIGTERM comes: the process drains it (the run
 *    SUCCEEDS) and exits 0 within CRONQL_SHUTDOWN_GRACE_MS + the last-resort 15 s;
 * 6. the same CMD without DATABASE_URL: the embedded PostgreSQL starts in the data dir as that
 *    user, /readyz answers 200, SIGTERM stops both and exits 0.
 *
 * Needs root (to switch to nobody, and for the embedded PostgreSQL's own user) and the npm registry.
 * Exits 0 when every check held; prints each step and, on a failure, what the process printed.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const UID = Number(process.env.IMAGE_STEPS_UID ?? 65534);
const started = Date.now();
const step = (what) => console.log(`[image-steps ${((Date.now() - started) / 1000).toFixed(1)} s] ${what}`);
function check(ok, what) {
  if (!ok) throw new Error(`check failed: ${what}`);
  step(`ok: ${what}`);
}
if (process.getuid?.() !== 0) {
  console.error('image-steps: run as root (it switches to a non-root uid itself, as the image does)');
  process.exit(2);
}

// --- the Dockerfile: stages, each a list of [KEYWORD, arguments] ------------------------------
const lines = readFileSync(join(root, 'Dockerfile'), 'utf8')
  .replace(/\\\r?\n(\s*#[^\n]*\n)*/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const stages = [];
for (const line of lines) {
  const [, keyword, rest] = /^(\S+)\s*(.*)$/.exec(line);
  if (keyword === 'FROM') stages.push([]);
  else if (stages.length) stages.at(-1).push([keyword, rest.replace(/\s+/g, ' ')]);
}
const [build, runtime] = [stages.at(-2), stages.at(-1)];
const runs = (stage) => stage.filter(([k]) => k === 'RUN').map(([, a]) => a);
const imageEnv = {};
for (const [, a] of runtime.filter(([k]) => k === 'ENV')) for (const m of a.matchAll(/(\w+)=(\S*)/g)) imageEnv[m[1]] = m[2];
const cmd = JSON.parse(runtime.filter(([k]) => k === 'CMD').at(-1)[1]);
const healthcheck = runtime.filter(([k]) => k === 'HEALTHCHECK').at(-1)[1];
const healthcheckCmd = JSON.parse(healthcheck.slice(healthcheck.indexOf('CMD ') + 4));
const user = runtime.filter(([k]) => k === 'USER').at(-1)[1];
check(Number(user.split(':')[0]) > 0, `the image runs as a non-root user (USER ${user}); here uid ${UID} stands for it`);

// --- a clean directory: the image's /app, /tmp/pack, /data and a HOME, owned by the user -------
const dir = mkdtempSync(join(tmpdir(), 'cronql-image-'));
chmodSync(dir, 0o755);
const paths = { '/tmp/pack': join(dir, 'tmp', 'pack'), '/tmp/npm-cache': join(dir, 'tmp', 'npm-cache'), '/pack': join(dir, 'pack'), '/app': join(dir, 'app'), '/data': join(dir, 'data') };
const home = join(dir, 'home');
// This Node, where the user can run it (CI keeps it under root's 0700 HOME), first on the user's
// PATH: npm and the CMD run on the Node the tests run on, as the image's run on its base's.
const node = join(dir, 'node-bin', 'node');
mkdirSync(dirname(node));
copyFileSync(process.execPath, node);
chmodSync(node, 0o755);
const userPath = `${dirname(node)}:${process.env.PATH}`;
// What exists before the steps: the runtime stage's /app and /data (its first RUN), /tmp, a HOME.
for (const p of [paths['/app'], paths['/data'], join(dir, 'tmp'), home]) mkdirSync(p, { recursive: true });
chmodSync(join(dir, 'tmp'), 0o1777); // as the image's /tmp: anyone may create, only the owner remove
/** The Dockerfile's absolute paths (at the start of a word or after `=`), in one pass. */
const mapped = (text) => text.replace(/(?<=^|[\s=])(\/tmp\/pack|\/tmp\/npm-cache|\/pack|\/app|\/data)(?=\/|\s|$)/g, (p) => paths[p]);
let db;
let child;
let output = '';
try {
  // 1. The build stage's last step, in this checkout (which has the dev dependencies).
  const pack = runs(build).at(-1);
  step(`build stage: ${pack}`);
  execFileSync('sh', ['-c', mapped(pack)], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  check(existsSync(join(paths['/pack'], 'cronql.tgz')), 'the packed tarball');
  // COPY --from=build --chown=<user> /pack/ /tmp/pack/
  cpSync(paths['/pack'], paths['/tmp/pack'], { recursive: true });
  for (const p of [paths['/tmp/pack'], ...readdirSync(paths['/tmp/pack']).map((f) => join(paths['/tmp/pack'], f)), paths['/app'], paths['/data'], home]) chownSync(p, UID, UID);

  // 2. The runtime stage's install step, as the user.
  const asUser = (file, args, options) => ['setpriv', [`--reuid=${UID}`, `--regid=${UID}`, '--clear-groups', '--', file, ...args], options];
  // How this machine reaches the registry (a proxy, its CA): the environment's settings, and the
  // registry and CA file of root's npm, which npm reads from files the user may not (or, with
  // the Node copied above, from beside another Node).
  const npmSetting = (key) => execFileSync('npm', ['config', 'get', key], { encoding: 'utf8' }).trim();
  const network = {
    ...Object.fromEntries(['NODE_EXTRA_CA_CERTS', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'https_proxy', 'http_proxy', 'no_proxy'].filter((k) => process.env[k]).map((k) => [k, process.env[k]])),
    ...Object.fromEntries(['registry', 'cafile'].map((k) => [`npm_config_${k}`, npmSetting(k)]).filter(([, v]) => v && v !== 'null' && v !== 'undefined')),
  };
  const userEnv = { PATH: userPath, HOME: home, npm_config_cache: join(home, '.npm'), npm_config_update_notifier: 'false', ...network };
  const install = runs(runtime).find((r) => r.includes('npm ci --omit=dev'));
  check(install !== undefined, 'the runtime stage installs with npm ci --omit=dev');
  step(`runtime stage, as uid ${UID}: ${install}`);
  execFileSync(...asUser('sh', ['-c', mapped(install)], { cwd: paths['/app'], env: userEnv, stdio: ['ignore', 'inherit', 'inherit'] }));
  const installed = readdirSync(join(paths['/app'], 'node_modules'));
  check(installed.includes('express') && !installed.includes('typescript') && !installed.includes('vitest'), 'production dependencies only (express, no typescript, no vitest)');
  check(existsSync(join(paths['/app'], cmd[1])), `the CMD's file is in the package (${cmd[1]})`);

  // 3. A PostgreSQL (this checkout's embedded one), and the CMD with the image's ENV.
  const { startEmbeddedPostgres } = await import(join(root, 'dist/src/db/embedded-postgres.js'));
  const { createLogger } = await import(join(root, 'dist/src/logger.js'));
  db = await startEmbeddedPostgres({ dataDir: join(dir, 'postgres'), log: createLogger(), ephemeral: true, database: 'cronql_image' });
  const token = `image-steps-${Date.now()}-admin`;
  // The CMD as the user, with the image's ENV and `env` on top; PORT=0 (a free port, printed):
  // the image's 4000 may be taken on this machine.
  const start = async (env) => {
    const runEnv = { ...Object.fromEntries(Object.entries(imageEnv).map(([k, v]) => [k, mapped(v)])), PATH: userPath, HOME: paths['/data'], PORT: '0', CRONQL_ADMIN_TOKEN: token, LOG_LEVEL: 'info', ...env };
    step(`start, as uid ${UID}: ${cmd.join(' ')} (CRONQL_ROLE=${runEnv.CRONQL_ROLE ?? 'all'}, HOST=${runEnv.HOST}, ${runEnv.DATABASE_URL ? 'DATABASE_URL' : 'embedded PostgreSQL'})`);
    output = '';
    child = spawn(...asUser(cmd[0] === 'node' ? node : cmd[0], cmd.slice(1), { cwd: paths['/app'], env: runEnv, stdio: ['ignore', 'pipe', 'pipe'] }));
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const port = await waitFor(() => /listening on http:\/\/[^:]+:(\d+)/.exec(output)?.[1] ?? (child.exitCode !== null && fail('cronql exited before listening')), 180_000, 'cronql is listening');
    const uid = readFileSync(`/proc/${await cronqlPid(child.pid)}/status`, 'utf8').match(/^Uid:\s+(\d+)/m)[1];
    check(Number(uid) === UID, `cronql runs as uid ${uid}`);
    const base = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${base}/readyz`).then((r) => r.status, () => 0)) === 200, 120_000, '/readyz 200');
    step('ok: /readyz answers 200');
    return { port, base, exited, boundMs: Number(runEnv.CRONQL_SHUTDOWN_GRACE_MS ?? 30_000) + 15_000 };
  };
  /** SIGTERM; the process must exit 0 within its bound, having logged that it stopped. */
  const stop = async ({ exited, boundMs }) => {
    const termAt = Date.now();
    process.kill(await cronqlPid(child.pid), 'SIGTERM');
    const exit = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), boundMs + 5_000))]);
    check(exit !== null && exit.at - termAt <= boundMs, `exited within ${boundMs} ms of SIGTERM (${exit ? exit.at - termAt : '>'} ms)`);
    check(exit.code === 0, `exit code 0 (got ${exit.code}${exit.signal ? `, signal ${exit.signal}` : ''})`);
    check(/"msg":"stopped"/.test(output), 'it logged "stopped" (drained, then stopped in order)');
  };
  const server = await start({ DATABASE_URL: db.url });
  const { base, port } = server;

  // 4. Ready, and the image's HEALTHCHECK says so too.
  execFileSync(process.execPath, healthcheckCmd.slice(1), { env: { PATH: process.env.PATH, PORT: port } });
  check(true, 'the HEALTHCHECK command exits 0');

  // 5. A run in flight, then SIGTERM: it is drained, and the process exits 0 within its bound.
  const graphql = async (query, variables) => {
    const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query, variables }) });
    const body = await res.json();
    if (!body.data) throw new Error(`GraphQL: ${JSON.stringify(body.errors)}`);
    return body.data;
  };
  const { createJob } = await graphql('mutation($input: CreateJobInput!) { createJob(input: $input) { id } }', {
    input: { key: 'image-steps.drain', target: 'sleep', scheduleType: 'RECURRING', cronExpression: '0 3 1 1 *', payload: { ms: 4_000 } },
  });
  const { runJobNow } = await graphql('mutation($id: ID!) { runJobNow(id: $id) { id } }', { id: createJob.id });
  const status = async () => (await graphql('query($id: ID!) { run(id: $id) { status } }', { id: runJobNow.id })).run.status;
  await waitFor(async () => (await status()) === 'RUNNING', 30_000, 'the sleep run is RUNNING');
  step('ok: a sleep run (4 s) is RUNNING; SIGTERM');
  await stop(server);
  const pg = (await import(join(root, 'node_modules/pg/lib/index.js'))).default;
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const { rows } = await client.query('SELECT status FROM cron_job_runs WHERE id = $1', [runJobNow.id]);
  await client.end();
  check(rows[0]?.status === 'SUCCEEDED', `the run in flight at SIGTERM finished: ${rows[0]?.status}`);

  // 6. Without DATABASE_URL: the embedded PostgreSQL, run by the same user from the data dir (the
  // reason for a glibc base, and for the dependencies' install scripts).
  const embedded = await start({ CRONQL_DATA_DIR: paths['/data'] });
  check(existsSync(join(paths['/data'], 'pg')), 'the embedded cluster is in the data dir');
  await stop(embedded);
  step('image steps: all checks held');
} catch (err) {
  console.error(`image-steps: ${err.message}`);
  if (output) console.error(`--- what cronql printed ---\n${output.split('\n').slice(-60).join('\n')}`);
  process.exitCode = 1;
} finally {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await db?.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** setpriv execs cronql in place, so its pid is the child's; checked rather than assumed. */
async function cronqlPid(pid) {
  const exe = readlinkSync(`/proc/${pid}/exe`);
  if (exe !== node) throw new Error(`pid ${pid} runs ${exe}, not ${node}`);
  return pid;
}

function fail(what) {
  throw new Error(what);
}

async function waitFor(fn, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DEFAULTS, RUNTIME_BOUNDS, loadConfig, type Config } from '../../src/config.js';
import { mountHealth } from '../../src/http/health.js';
import { last, parseDockerfile, stageEnv } from '../support/dockerfile.js';
import { ROOT } from '../support/doc-references.js';

/**
 * The container image, compose.yaml and deploy/kubernetes/ checked against the code they run:
 * every variable they set is one the configuration reads, with a value it accepts; probes and
 * the health check ask for paths the server serves, on the port it listens on; roles, users,
 * stop timeouts and selectors agree. (Running the image's steps for real: scripts/image-steps.mjs.)
 */
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The variables `loadConfig` reads: every name it asks of the environment on its way to the defaults. */
function variablesTheConfigurationReads(): Set<string> {
  const names = new Set<string>();
  loadConfig(new Proxy({}, { get: (_t, name) => (typeof name === 'string' && names.add(name), undefined) }));
  return names;
}
const KNOWN = variablesTheConfigurationReads();

/** The paths src/http/health.ts serves: its routes, registered on a recording app. */
function healthPaths(): string[] {
  const paths: string[] = [];
  mountHealth({ get: (path: string) => paths.push(path) } as never, {} as never);
  return paths;
}
const SERVED = healthPaths();

/** A value the configuration accepts for a secret's variable, made up for each run. */
function sample(name: string): string {
  if (name === 'DATABASE_URL') return `postgres://cronql:${randomBytes(12).toString('hex')}@postgres:5432/cronql`;
  if (name === 'CRONQL_SECRETS_KEY') return randomBytes(32).toString('base64');
  return randomBytes(8 + Math.floor(Math.random() * 24)).toString('hex'); // tokens, passwords: 16–62 characters
}

const dockerfile = parseDockerfile(read('Dockerfile'));
const runtime = dockerfile.stages.at(-1)!;
const IMAGE_ENV = stageEnv(runtime);
const IMAGE_USER = last(runtime, 'USER')!;
const IMAGE_UID = Number(IMAGE_USER.split(':')[0]);

/** The configuration a container of the image gets with `env` on top of the image's own. */
function configOf(env: Record<string, string>): Config {
  return loadConfig({ ...IMAGE_ENV, ...env });
}

/** The process's longest possible stop after SIGTERM (src/main.ts), for a container's `env`. */
function longestStopMs(config: Config): number {
  return config.shutdownGraceMs + RUNTIME_BOUNDS.shutdownLastResortMs;
}

/** `node dist/src/x.js` runs the build of `src/x.ts`, which must exist. */
function sourceOf(command: string[]): string {
  expect(command[0]).toBe('node');
  const m = /^dist\/(.+)\.js$/.exec(command[1]!);
  expect(m, `${command[1]} is not a file of the build (dist/…/*.js)`).not.toBeNull();
  return `${m![1]}.ts`;
}

describe('the Dockerfile', () => {
  it('builds on glibc, installs production dependencies only, and runs node itself as PID 1', () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of dockerfile.stages) expect(stage.from, 'the embedded PostgreSQL needs glibc').not.toMatch(/alpine|musl/i);
    expect(dockerfile.args.BASE_IMAGE).toMatch(/^node:\d+-(bookworm|trixie)(-slim)?$/);
    const runs = runtime.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args).join('\n');
    expect(runs).toMatch(/npm ci --omit=dev/);
    expect(runs).toMatch(/cronql\.tgz/); // from the packed tarball
    const cmd = JSON.parse(last(runtime, 'CMD')!) as string[]; // exec form: JSON, no shell in between
    expect(existsSync(join(ROOT, sourceOf(cmd)))).toBe(true);
    expect(cmd[1]).toBe('dist/src/main.js');
    expect(last(runtime, 'ENTRYPOINT')).toBeUndefined();
    expect(last(runtime, 'STOPSIGNAL') ?? 'SIGTERM').toBe('SIGTERM');
  });

  it('runs as a non-root user it creates, by number', () => {
    expect(IMAGE_USER).toMatch(/^\d+:\d+$/);
    expect(IMAGE_UID).toBeGreaterThan(0);
    const runs = runtime.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args).join('\n');
    expect(runs).toContain(`--uid ${IMAGE_UID}`);
  });

  it('sets only variables the configuration reads, listens on every interface, and exposes its port', () => {
    expect(Object.keys(IMAGE_ENV).filter((n) => n !== 'NODE_ENV' && !KNOWN.has(n))).toEqual([]);
    const config = configOf({});
    expect(config.host).toBe('0.0.0.0');
    expect(last(runtime, 'EXPOSE')).toBe(String(config.port));
    expect(config.dataDir).toBe('/data');
  });

  it('checks health on /readyz, and its command exits 0 only on a 2xx answer', async () => {
    const healthcheck = last(runtime, 'HEALTHCHECK')!;
    const command = JSON.parse(healthcheck.slice(healthcheck.indexOf('CMD ') + 4)) as string[];
    expect(command.slice(0, 2)).toEqual(['node', '-e']);
    expect(SERVED).toContain('/readyz');
    expect(command[2]).toContain("/readyz'");
    // The command itself, against a server answering what /readyz answers.
    let status = 200;
    const asked: string[] = [];
    const server = createServer((req, res) => {
      asked.push(req.url!);
      res.writeHead(status).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = String((server.address() as AddressInfo).port);
    const exitCode = (env: Record<string, string>) =>
      promisify(execFile)(process.execPath, command.slice(1), { env: { ...env, PATH: process.env.PATH } }).then(() => 0, (e: { code: number }) => e.code);
    try {
      expect(await exitCode({ PORT: port })).toBe(0);
      status = 503;
      expect(await exitCode({ PORT: port })).toBe(1);
      expect(asked).toEqual(['/readyz', '/readyz']);
    } finally {
      await new Promise((r) => server.close(r));
    }
    expect(await exitCode({ PORT: port })).toBe(1); // nothing listening
  });
});

describe('compose.yaml', () => {
  const text = read('compose.yaml');
  const envExample = Object.fromEntries(read('.env.example').split('\n').filter((l) => /^\w+=/.test(l)).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  const used = [...new Set([...text.matchAll(/\$\{(\w+)/g)].map((m) => m[1]!))].sort();
  const values = Object.fromEntries(used.map((n) => [n, sample(n)]));
  // Compose's interpolation: ${A}, ${A:-default}, ${A:?error}, with the values of an .env.
  const interpolated = text.replace(/\$\{(\w+)(?:(:?[-?])([^}]*))?\}/g, (_, name: string, op?: string, word?: string) => values[name] || (op?.endsWith('-') ? word! : ''));
  const compose = parse(interpolated, { merge: true }) as {
    services: Record<string, { image?: string; build?: unknown; environment?: Record<string, string>; depends_on?: Record<string, { condition: string }>; ports?: string[]; deploy?: { replicas?: number }; stop_grace_period?: string; volumes?: string[]; healthcheck?: { test: string[] } }>;
    volumes: Record<string, unknown>;
  };
  const cronql = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);

  it('takes every ${…} from .env.example, which lists nothing else; .env stays out of git and the image', () => {
    expect(text).not.toMatch(/\$(?!\{|\$)\w/); // only ${NAME} forms
    expect(Object.keys(envExample).sort()).toEqual(used);
    expect(Object.values(envExample).every((v) => v === ''), 'no secret is committed').toBe(true);
    expect(read('.gitignore').split('\n')).toContain('.env');
    expect(read('.dockerignore').split('\n')).toContain('.env');
  });

  it('runs PostgreSQL 18 on a named volume, with a health check the others wait for', () => {
    const postgres = compose.services.postgres!;
    expect(postgres.image).toMatch(/^postgres:18(\b|$)/);
    const [volume, mount] = postgres.volumes![0]!.split(':');
    expect(Object.keys(compose.volumes)).toContain(volume);
    expect(mount).toBe('/var/lib/postgresql'); // 18's images keep the cluster in a versioned directory below it
    expect(postgres.healthcheck!.test.join(' ')).toContain('pg_isready');
    for (const [name, s] of cronql) expect(s.depends_on, name).toEqual({ postgres: { condition: 'service_healthy' } });
  });

  it('runs one api and two schedulers, each with a configuration cronql accepts', () => {
    expect(cronql.map(([n]) => n).sort()).toEqual(['api', 'scheduler']);
    for (const [name, service] of cronql) {
      const env = service.environment!;
      expect(Object.keys(env).filter((n) => !KNOWN.has(n)), name).toEqual([]);
      const config = configOf(env);
      expect(config.role).toBe(name);
      expect(config.databaseUrl).toMatch(/@postgres:5432\//);
      expect(config.secretsKey, 'every instance must decrypt the same secrets').toBe(values.CRONQL_SECRETS_KEY);
      // The stop timeout covers the drain and the last-resort exit.
      const [, seconds] = /^(\d+)s$/.exec(service.stop_grace_period!)!;
      expect(Number(seconds) * 1000).toBeGreaterThanOrEqual(longestStopMs(config));
    }
    const api = configOf(compose.services.api!.environment!);
    expect(api.adminToken).toBe(values.CRONQL_ADMIN_TOKEN);
    expect(compose.services.api!.ports).toEqual([`${api.port}:${api.port}`]);
    expect(compose.services.scheduler!.deploy?.replicas).toBe(2);
    expect(compose.services.scheduler!.ports).toBeUndefined();
  });
});

describe('deploy/kubernetes', () => {
  const DIR = 'deploy/kubernetes';
  type Manifest = { kind: string; metadata: { name: string; labels?: Record<string, string> }; spec: any; stringData?: Record<string, string>; resources?: string[]; images?: { name: string }[] };
  const files = readdirSync(join(ROOT, DIR)).filter((f) => f.endsWith('.yaml'));
  const byFile = Object.fromEntries(files.map((f) => [f, parseAllDocuments(read(`${DIR}/${f}`)).map((d) => {
    expect(d.errors, f).toEqual([]);
    return d.toJS() as Manifest;
  })]));
  const all = Object.values(byFile).flat();
  const ofKind = (kind: string) => all.filter((m) => m.kind === kind);
  const deployments = ofKind('Deployment');
  const secret = byFile['secret.example.yaml']![0]!;

  /** A container's environment with made-up values for its secrets and the pod's name. */
  function envOf(container: { env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean }; fieldRef?: unknown } }[] }): Record<string, string> {
    const env: Record<string, string> = {};
    for (const e of container.env ?? []) {
      if (e.value !== undefined) env[e.name] = e.value;
      else if (e.valueFrom?.secretKeyRef) {
        const ref = e.valueFrom.secretKeyRef;
        expect(ref.name).toBe(secret.metadata.name);
        expect(Object.keys(secret.stringData!), `${e.name}: no key ${ref.key} in the example Secret`).toContain(ref.key);
        env[e.name] = sample(e.name);
      } else if (e.valueFrom?.fieldRef) env[e.name] = `cronql-pod-${randomBytes(4).toString('hex')}`;
      else throw new Error(`${e.name}: no value`);
    }
    return env;
  }

  it('parses, and kustomization.yaml lists every manifest but the example Secret and the migration Job', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(['cronql-api', 'cronql-scheduler']);
    const kustomization = byFile['kustomization.yaml']![0]!;
    expect([...kustomization.resources!].sort()).toEqual(files.filter((f) => !['kustomization.yaml', 'secret.example.yaml', 'migrate-job.yaml'].includes(f)).sort());
    const images = new Set([...deployments, ...ofKind('Job')].flatMap((w) => w.spec.template.spec.containers.map((c: { image: string }) => c.image.split(':')[0])));
    expect([...images]).toEqual([kustomization.images![0]!.name]);
  });

  it('the example Secret holds placeholders, not secrets', () => {
    expect(secret.kind).toBe('Secret');
    for (const [key, value] of Object.entries(secret.stringData!)) expect(value, key).toContain('REPLACE-ME');
  });

  for (const role of ['api', 'scheduler'] as const) {
    it(`the ${role} Deployment: its role, a configuration cronql accepts, probes on served paths and its port, a stop timeout over the drain`, () => {
      const d = deployments.find((x) => x.metadata.name === `cronql-${role}`)!;
      const pod = d.spec.template.spec;
      expect(d.spec.template.metadata.labels['app.kubernetes.io/component']).toBe(role);
      expect(d.spec.selector.matchLabels).toEqual(d.spec.template.metadata.labels);
      const container = pod.containers[0];
      const env = envOf(container);
      expect(Object.keys(env).filter((n) => !KNOWN.has(n))).toEqual([]);
      const config = configOf(env);
      expect(config.role).toBe(role);
      expect(config.host).toBe('0.0.0.0');
      expect(env.CRONQL_SECRETS_KEY, 'every instance must decrypt the same secrets').toBeDefined();
      if (role === 'api') expect(env.CRONQL_ADMIN_TOKEN, 'unset, each replica would make a token of its own').toBeDefined();

      const http = container.ports.find((p: { name: string }) => p.name === 'http');
      expect(http.containerPort).toBe(config.port);
      expect(container.livenessProbe.httpGet.path).toBe('/healthz');
      expect(container.readinessProbe.httpGet.path).toBe('/readyz');
      for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
        const get = container[probe].httpGet;
        expect(SERVED, probe).toContain(get.path);
        expect([http.name, http.containerPort], probe).toContain(get.port);
      }
      // /readyz answers within a second; the probe waits longer than that.
      expect(container.readinessProbe.timeoutSeconds).toBeGreaterThan(1);

      const preStopSeconds = Number(container.lifecycle?.preStop?.exec?.command?.[0] === 'sleep' ? container.lifecycle.preStop.exec.command[1] : 0);
      expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(preStopSeconds * 1000 + longestStopMs(config));
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: IMAGE_UID });
      expect(container.resources.requests.memory).toBeDefined();
      expect(container.resources.limits.memory).toBeDefined();
    });
  }

  it('the schedulers arm each job on two of them, and a disruption leaves one of each role', () => {
    const scheduler = deployments.find((x) => x.metadata.name === 'cronql-scheduler')!;
    expect(scheduler.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(Number(envOf(scheduler.spec.template.spec.containers[0]).CRONQL_JOB_REPLICAS ?? DEFAULTS.jobReplicas)).toBeLessThanOrEqual(scheduler.spec.replicas);
    const budgets = ofKind('PodDisruptionBudget');
    expect(budgets).toHaveLength(deployments.length);
    for (const d of deployments) {
      const labels = d.spec.template.metadata.labels as Record<string, string>;
      const matching = budgets.filter((b) => Object.entries(b.spec.selector.matchLabels).every(([k, v]) => labels[k] === v));
      expect(matching, d.metadata.name).toHaveLength(1);
      expect(matching[0]!.spec.minAvailable).toBeGreaterThanOrEqual(1);
      expect(matching[0]!.spec.minAvailable).toBeLessThan(d.spec.replicas);
    }
  });

  it('the Service sends to the api pods only, on their http port', () => {
    const [service] = ofKind('Service');
    const api = deployments.find((x) => x.metadata.name === 'cronql-api')!;
    const scheduler = deployments.find((x) => x.metadata.name === 'cronql-scheduler')!;
    const selects = (labels: Record<string, string>) => Object.entries(service!.spec.selector).every(([k, v]) => labels[k] === v);
    expect(selects(api.spec.template.metadata.labels)).toBe(true);
    expect(selects(scheduler.spec.template.metadata.labels)).toBe(false);
    expect(service!.spec.ports[0].targetPort).toBe('http');
    expect(api.spec.template.spec.containers[0].ports.map((p: { name: string }) => p.name)).toContain('http');
  });

  it('the migration Job runs the build of src/cli/migrate.ts on the database of the Deployments', () => {
    const [job] = ofKind('Job');
    const container = job!.spec.template.spec.containers[0];
    expect(sourceOf(container.command)).toBe('src/cli/migrate.ts');
    expect(existsSync(join(ROOT, 'src/cli/migrate.ts'))).toBe(true);
    const env = envOf(container);
    expect(configOf(env).databaseUrl).toBeDefined();
    expect(job!.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: IMAGE_UID });
  });
});

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The container image's steps without a container engine (scripts/image-steps.mjs, also
 * `npm run test:image`): the Dockerfile's pack and install commands in a clean directory as a
 * non-root uid, its CMD on a PostgreSQL the script starts and on the embedded one, /readyz, the
 * HEALTHCHECK, and SIGTERM draining a run in flight. It switches users itself, so it needs root.
 */
const root = fileURLToPath(new URL('../', import.meta.url));
const asRoot = process.getuid?.() === 0;

describe('the container image', () => {
  it.skipIf(!asRoot)('its steps hold: installed as a non-root user from the packed tarball, ready, drained on SIGTERM (needs root to switch users)', async () => {
    const child = spawn(process.execPath, ['scripts/image-steps.mjs'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const code = await new Promise((r) => child.once('exit', r));
    expect(code, output.split('\n').filter((l) => !l.startsWith('{') && !l.startsWith('npm notice')).slice(-60).join('\n')).toBe(0);
    expect(output).toContain('image steps: all checks held');
  });
});

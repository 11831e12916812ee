/**
 * The cost of tracing (docs/operations.md, "Tracing"): N co-due jobs (bench/lib/co-due-jobs.ts)
 * fire in one process of role `all`, each handler stamping `Date.now()` as it is entered, with
 * tracing off and with tracing on — exporting over OTLP/HTTP protobuf to a collector stand-in in
 * another process (bench/lib/otlp-collector.ts), which counts the spans it receives. Rounds
 * alternate off/on (and which goes first), on the same PostgreSQL, each on a fresh database.
 *
 * Figures: slot → handler entered p99, tracing on against tracing off (median of the rounds'
 * p99s; goal ≤ 1.2×), and the spans received against the spans expected (three per run: the run,
 * its claim, its handler; goal: all of them, none dropped by the export queue — counted by span id:
 * a batch the exporter sent again after a timed-out attempt is printed, not counted twice).
 *
 *   BENCH_TRACING=10000 BENCH_ROUNDS=3 node --expose-gc dist/bench/tracing.js
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createCronql } from '../src/app.js';
import { gc, log, pct, report, until } from './lib/bench.js';
import { jobsDatabase, nextSlot } from './lib/co-due-jobs.js';
import { benchServer } from './server.js';

const N = Number(process.env.BENCH_TRACING ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const GOAL = 1.2;
const SPANS_PER_RUN = 3;
const median = (xs: number[]) => pct(xs, 0.5);
const fmt = (x: number) => `${Math.round(x).toLocaleString('en')} ms`;

const collector = fork(fileURLToPath(new URL('./lib/otlp-collector.js', import.meta.url)), [], { stdio: 'inherit' });
const [{ endpoint }] = (await once(collector, 'message')) as [{ endpoint: string }];
/** Spans the collector received so far: all of them, and distinct (by trace and span id). */
const collected = async (): Promise<{ count: number; distinct: number }> => {
  collector.send('count');
  const [{ count, distinct }] = (await once(collector, 'message')) as [{ count: number; distinct: number }];
  return { count, distinct };
};
// Read by the exporter when a traced cronql starts; the untraced rounds say `tracing: false`.
process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;

interface Round {
  p99: number;
  p50: number;
  /** slot → RUNNING committed (the claim's answer reaching the fire path), p50 and p99. */
  committed: { p50: number; p99: number };
  /** Distinct spans the collector received for this round (traced rounds). */
  spans: number;
  /**
   * Spans received more than once: the OTLP exporter sends a batch again when an attempt timed out
   * (a collector too slow to answer on a loaded machine), so a receiver may see it twice. Not a loss.
   */
  resent: number;
  /** This process's CPU time (user + system) from the slot to the spans exported. */
  cpuMs: number;
  /** The same from the slot to the last handler entered. */
  cpuEnteredMs: number;
  entered: number;
}

async function scenario(serverUrl: string, n: number, tracing: boolean): Promise<Round> {
  const db = await jobsDatabase(serverUrl, n, 'UTC', 'bench-enter', () => `'{}'::jsonb`, 'cronql_bench_tracing');
  gc();
  let slot = 0;
  const enteredAt: number[] = [];
  let cpu0 = process.cpuUsage();
  let cpuEntered: NodeJS.CpuUsage | undefined;
  const cronql = createCronql({
    databaseUrl: db.url,
    log,
    role: 'all',
    retentionDays: 0,
    instanceId: `bench-tracing-${tracing ? 'on' : 'off'}`,
    tracing,
    targets: {
      'bench-enter': ({ run }) => {
        if (run.scheduledAt.getTime() !== slot) return;
        // The CPU spent until the last handler is entered: the part of tracing's cost the goal's figure can feel.
        if (enteredAt.push(Date.now()) === n) cpuEntered = process.cpuUsage(cpu0);
      },
    },
  });
  await cronql.start();
  const before = await collected();
  slot = nextSlot();
  // This process's CPU (cronql's: the database is another process) from before the slot to the
  // spans exported: what tracing costs whatever else loads the machine.
  cpu0 = process.cpuUsage();
  const committed: number[] = [];
  cronql.runtimeEvents.on('slotRecorded', (e) => {
    if (e.slot.getTime() === slot && e.kind === 'claimed') committed.push(Date.now() - slot);
  });
  let ended = 0;
  const done = new Promise<void>((resolve) => {
    cronql.events.on((c) => {
      if (c.run.scheduledAt.getTime() !== slot) return;
      if (c.previousStatus === 'RUNNING' || c.run.status === 'SKIPPED') if (++ended === n) resolve();
    });
  });
  await Promise.race([done, until(slot + 120_000)]);
  if (ended < n) console.log(`  ${n - ended} of ${n} runs had not ended 120 s after the slot`);
  // Every span queued is exported before counting (the export queue is what is judged, not the flush's speed).
  await cronql.tracing?.flush();
  const cpuUsed = process.cpuUsage(cpu0);
  const cpuMs = (cpuUsed.user + cpuUsed.system) / 1000;
  const cpuEnteredMs = cpuEntered ? (cpuEntered.user + cpuEntered.system) / 1000 : Number.NaN;
  await cronql.stop();
  const after = await collected();
  const spans = after.distinct - before.distinct;
  const resent = after.count - before.count - spans;
  await db.drop();
  const entered = enteredAt.map((t) => t - slot);
  return { p99: pct(entered, 0.99), p50: pct(entered, 0.5), committed: { p50: pct(committed, 0.5), p99: pct(committed, 0.99) }, spans, resent, entered: entered.length, cpuMs, cpuEnteredMs };
}

const server = await benchServer(log);
try {
  const off: Round[] = [];
  const on: Round[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    // Alternating which goes first: a machine that drifts over the run favours neither.
    for (const traced of round % 2 === 1 ? [false, true] : [true, false]) {
      const r = await scenario(server.url, N, traced);
      (traced ? on : off).push(r);
      console.log(
        `tracing ${traced ? 'on ' : 'off'} ${N.toLocaleString('en')} co-due round ${round} | handler entered p50 ${fmt(r.p50)}, p99 ${fmt(r.p99)} | RUNNING committed p50 ${fmt(r.committed.p50)}, p99 ${fmt(r.committed.p99)} | entered ${r.entered} of ${N} | process CPU ${fmt(r.cpuEnteredMs)} to the last handler entered, ${fmt(r.cpuMs)} to the spans exported` +
          (traced ? ` | spans received ${r.spans.toLocaleString('en')} of ${(SPANS_PER_RUN * N).toLocaleString('en')}${r.resent ? ` (and ${r.resent.toLocaleString('en')} sent again)` : ''}` : ''),
      );
    }
  }
  // A round in which not every run was entered (the machine so loaded that slots were MISSED)
  // says nothing of tracing's cost: left out of the medians, and the goal is then not met.
  const complete = (rs: Round[]) => rs.filter((r) => r.entered === N);
  const everyRun = [...on, ...off].every((r) => r.entered === N);
  const name = `tracing ${N.toLocaleString('en')} co-due (median of ${complete(on).length} on, ${complete(off).length} off)`;
  const value = median(complete(on).map((r) => r.p99));
  const baseline = median(complete(off).map((r) => r.p99));
  report({ scenario: name, figure: 'slot → handler entered p99, tracing on', value, baselineName: 'tracing off', baseline, goal: `≤ ${GOAL}× tracing off, every run entered`, met: value <= GOAL * baseline && everyRun });
  // Load-independent beside it: the process's CPU per round (no goal; the lead's quiet run judges the p99).
  report({ scenario: name, figure: 'process CPU, slot → last handler entered, tracing on', value: median(on.map((r) => r.cpuEnteredMs)), baselineName: 'tracing off', baseline: median(off.map((r) => r.cpuEnteredMs)) });
  report({ scenario: name, figure: 'process CPU, slot → spans exported, tracing on', value: median(on.map((r) => r.cpuMs)), baselineName: 'tracing off', baseline: median(off.map((r) => r.cpuMs)) });
  const fewest = Math.min(...on.map((r) => r.spans));
  report({ scenario: name, figure: 'spans received (fewest of a round)', value: fewest, baselineName: 'expected (3 per run)', baseline: SPANS_PER_RUN * N, unit: 'spans', goal: 'all of them (none dropped)', met: on.every((r) => r.spans === SPANS_PER_RUN * N) });
} catch (err) {
  console.error('bench failed:', err);
  process.exitCode = 1;
} finally {
  collector.send('stop');
  await server.stop();
}

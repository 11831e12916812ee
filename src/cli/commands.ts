import { readFile, writeFile } from 'node:fs/promises';
import { Command, Option } from 'commander';
import {
  AuditLogDocument,
  BackfillJobDocument,
  CancelRunDocument,
  CreateJobDocument,
  CreateJobsDocument,
  CreateJobVersionsDocument,
  JobDocument,
  JobsDocument,
  LiveJobsDocument,
  PauseJobDocument,
  PauseJobsDocument,
  ResumeJobsDocument,
  PreviewScheduleDocument,
  ParseScheduleDocument,
  ResumeJobDocument,
  RetireJobDocument,
  RunChangedDocument,
  RunDocument,
  RunJobNowDocument,
  RunLogLinesDocument,
  RunLogPageDocument,
  RunsDocument,
  SkipNextRunsDocument,
  UpcomingDocument,
  type RunLogLineFieldsFragment,
  type RunLogPageQuery,
  TargetsDocument,
  CalendarsDocument,
  SetCalendarDocument,
  DeleteCalendarDocument,
  type CalendarFieldsFragment,
  ConcurrencyPoolsDocument,
  SetConcurrencyPoolDocument,
  DeleteConcurrencyPoolDocument,
  ApiTokensDocument,
  CreateApiTokenDocument,
  RevokeApiTokenDocument,
  WhoamiDocument,
  type ApiTokenFieldsFragment,
  type TokenRole,
  type BackfillFieldsFragment,
  type BackfillScope,
  type JobDefinitionFieldsFragment,
  type JobFieldsFragment,
  type JobScheduleFieldsFragment,
  type JobStatus,
  type CreateJobInput,
  type CreateJobVersionInput,
  type RunStatus,
} from '../client/generated/graphql.js';
import { CliError, request, subscribe, type Endpoint } from './client.js';
import type { JobSettingName } from '../domain/job-fields.js';
import { calendarDefinition, calendarSpec, canonical, changedFields, definitionSpec, parseJobsFile, settingsDefinition, specDefinition, toYaml, upstreamsFirst, type CalendarSpec, type Definition, type JobsFile, type JobSpec } from './jobs-file.js';

/**
 * `cronql`: the command line of a running cronql, over its GraphQL API (CRONQL_URL, CRONQL_TOKEN,
 * or --url/--token). Tables for people, --json for scripts; an API error prints its code and
 * message and exits 1. `cronql start` and `cronql migrate` run the server side itself.
 */
const program = new Command('cronql').description('cronql: cron jobs for application backends').showHelpAfterError();
program
  .option('--url <url>', 'the cronql server', process.env.CRONQL_URL ?? 'http://127.0.0.1:4000')
  .option('--token <token>', 'bearer token (the admin or viewer token, or a named one)', process.env.CRONQL_TOKEN)
  .option('--json', 'print JSON');

/** Several failures at once (every bad job of a file): one `error CODE: message` line each. */
class CliErrors extends Error {
  constructor(readonly errors: CliError[]) {
    super(errors.map((e) => e.message).join('\n'));
  }
}

const endpoint = (): Endpoint => ({ url: program.opts().url, token: program.opts().token });
const asJson = (): boolean => Boolean(program.opts().json);

/** Prints rows as aligned columns, or JSON with --json. */
function output(value: unknown, rows?: Record<string, unknown>[]): void {
  if (asJson() || !rows) {
    console.log(JSON.stringify(value, null, 2));
    return;
  }
  if (rows.length === 0) {
    console.log('(none)');
    return;
  }
  const cols = Object.keys(rows[0]);
  const text = (v: unknown) => (v === null || v === undefined ? '-' : v instanceof Object ? JSON.stringify(v) : String(v));
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => text(r[c]).length)));
  console.log(cols.map((c, i) => c.toUpperCase().padEnd(widths[i])).join('  '));
  for (const r of rows) console.log(cols.map((c, i) => text(r[c]).padEnd(widths[i])).join('  ').trimEnd());
}

/** A job with its schedule in words when the query asked for it (a page of jobs does not). */
type ListedJob = JobFieldsFragment & Partial<JobScheduleFieldsFragment>;
/** A live job as `cronql apply` and `export` read it: its definition. */
type LiveJob = JobDefinitionFieldsFragment;
/** Every setting is read with a live job: one missing from JobDefinitionFields fails to compile here (apply would compare its default with the file's value). */
type UnreadSetting = Exclude<JobSettingName, keyof LiveJob>;
const everySettingRead: [UnreadSetting] extends [never] ? true : UnreadSetting = true;
void everySettingRead;

const jobRow = (j: ListedJob) => ({
  id: j.id, key: j.key, v: j.version, status: j.status, target: j.target,
  schedule: j.cronExpressions && j.cronExpressions.length > 1 ? j.cronExpressions.join(' | ') : j.cronExpression ?? (j.every ? `every ${j.every}` : j.runAt ?? j.scheduleDescription),
  tz: j.timezone, next: j.nextRunAt,
  description: j.scheduleDescription,
  labels: Object.entries((j.labels ?? {}) as Record<string, string>).map(([k, v]) => `${k}=${v}`).join(',') || null,
});
const json = (text: string | undefined, what: string): unknown => {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new CliError('BAD_USER_INPUT', `${what} must be JSON`);
  }
};

/** `--label k=v` values as a labels object (the server checks keys and values: INVALID_LABELS). */
function labelsOf(pairs: string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new CliError('INVALID_LABELS', `--label ${pair}: write key=value, e.g. --label team=billing`);
    labels[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return labels;
}

/** A job action takes one job's id or a label selector (-l), not both, not neither. */
function oneOrSelector(id: string | undefined, selector: string | undefined): 'one' | 'selector' {
  if ((id === undefined) === (selector === undefined)) throw new CliError('BAD_USER_INPUT', 'give a job id or -l <selector>, not both');
  return id === undefined ? 'selector' : 'one';
}

// --- server side -------------------------------------------------------------------------------
program
  .command('start')
  .description('start a cronql server (same as npm start)')
  .addOption(new Option('--role <role>', 'which parts run here').choices(['all', 'api', 'scheduler']))
  .action(async (o: { role?: string }) => {
    if (o.role) process.env.CRONQL_ROLE = o.role;
    await import('../main.js');
  });
program.command('migrate').description('apply pending database migrations').action(async () => {
  await import('./migrate.js');
});

// --- jobs ----------------------------------------------------------------------------------------
const jobs = program.command('jobs').description('job definitions');
jobs
  .command('list')
  .option('--status <status...>', 'ACTIVE, PAUSED, RETIRED')
  .option('--key <key>')
  .option('--target <target>')
  .option('-l, --selector <selector>', 'only jobs whose labels match: team=billing,env!=dev,tier in (a,b),!legacy')
  .option('--first <n>', 'at most this many', '50')
  .action(async (o: { status?: string[]; key?: string; target?: string; selector?: string; first: string }) => {
    const data = await request(endpoint(), JobsDocument, {
      filter: { status: o.status as JobStatus[] | undefined, key: o.key, target: o.target, labelSelector: o.selector },
      first: Number(o.first),
    });
    const nodes = data.jobs.edges.map((e) => e.node);
    output(nodes, nodes.map(jobRow));
  });
jobs.command('get <id>').action(async (id: string) => {
  const data = await request(endpoint(), JobDocument, { id, runsFirst: 5 });
  if (!data.job) throw new CliError('NOT_FOUND', `no job with id ${id}`);
  output(data.job, [jobRow(data.job)]);
});
jobs
  .command('create')
  .requiredOption('--key <key>')
  .requiredOption('--target <target>')
  .option('--cron <expression>', 'RECURRING: 5 fields, 6 with seconds first, or 7 with seconds first and the year last')
  .option('--run-at <instant>', 'ONE_TIME: an ISO 8601 instant')
  .option('--every <length>', 'INTERVAL: "45m", "1h30m", "90s" or "PT45M"')
  .option('--anchor-at <instant>', 'INTERVAL: the first slot (default: now)')
  .option('--start-at <instant>', 'no slot before this instant')
  .option('--end-at <instant>', 'no slot after this instant; the job retires after its last slot')
  .option('--max-runs <n>', 'retire the job after this many runs')
  .option('--tz <zone>', 'IANA time zone', 'UTC')
  .option('--payload <json>')
  .option('--timeout <seconds>')
  .option('--calendar <name...>', 'exclusion calendars: their excluded slots are SKIPPED (CALENDAR)')
  .option('--label <key=value...>', 'labels, e.g. --label team=billing env=prod')
  .option('--description <text>', 'what the job is for')
  .option('--owner <who>', 'who answers for the job')
  .action(async (o: { key: string; target: string; cron?: string; runAt?: string; every?: string; anchorAt?: string; startAt?: string; endAt?: string; maxRuns?: string; tz: string; payload?: string; timeout?: string; calendar?: string[]; label?: string[]; description?: string; owner?: string }) => {
    const data = await request(endpoint(), CreateJobDocument, {
      input: {
        key: o.key,
        target: o.target,
        scheduleType: o.cron ? ('RECURRING' as never) : o.every ? ('INTERVAL' as never) : ('ONE_TIME' as never),
        cronExpression: o.cron,
        runAt: o.runAt,
        every: o.every,
        anchorAt: o.anchorAt,
        startAt: o.startAt,
        endAt: o.endAt,
        maxRuns: o.maxRuns === undefined ? undefined : Number(o.maxRuns),
        timezone: o.tz,
        payload: json(o.payload, '--payload'),
        timeoutSeconds: o.timeout === undefined ? undefined : Number(o.timeout),
        calendars: o.calendar,
        labels: o.label === undefined ? undefined : labelsOf(o.label),
        description: o.description,
        owner: o.owner,
      },
    });
    output(data.createJob, [jobRow(data.createJob)]);
  });
jobs
  .command('pause [id]')
  .description('pause one job, or with -l every ACTIVE job whose labels match')
  .option('-l, --selector <selector>', 'every ACTIVE job whose labels match, e.g. team=billing (one statement; prints how many)')
  .requiredOption('--reason <reason>')
  .option('--until <when>', 'resume by itself then: an ISO 8601 instant, or from now: +30m, +12h, +2d')
  .action(async (id: string | undefined, o: { selector?: string; reason: string; until?: string }) => {
    const until = o.until ? moment(o.until, '--until') : undefined;
    if (oneOrSelector(id, o.selector) === 'selector') {
      const data = await request(endpoint(), PauseJobsDocument, { labelSelector: o.selector!, reason: o.reason, until });
      output({ paused: data.pauseJobs }, [{ paused: data.pauseJobs }]);
      return;
    }
    const data = await request(endpoint(), PauseJobDocument, { id: id!, reason: o.reason, until });
    output(data.pauseJob, [jobRow(data.pauseJob)]);
  });
jobs
  .command('skip <id>')
  .description('record the next N slots SKIPPED (SKIPPED_BY_ADMIN) instead of running them; 0 cancels')
  .requiredOption('--count <n>')
  .requiredOption('--reason <reason>')
  .action(async (id: string, o: { count: string; reason: string }) => {
    const data = await request(endpoint(), SkipNextRunsDocument, { id, count: Number(o.count), reason: o.reason });
    output(data.skipNextRuns, [{ ...jobRow(data.skipNextRuns), skipRemaining: data.skipNextRuns.skipRemaining }]);
  });
jobs
  .command('resume [id]')
  .description('resume one job, or with -l every PAUSED job whose labels match')
  .option('-l, --selector <selector>', 'every PAUSED job whose labels match (one statement; prints how many)')
  .action(async (id: string | undefined, o: { selector?: string }) => {
    if (oneOrSelector(id, o.selector) === 'selector') {
      const data = await request(endpoint(), ResumeJobsDocument, { labelSelector: o.selector! });
      output({ resumed: data.resumeJobs }, [{ resumed: data.resumeJobs }]);
      return;
    }
    const data = await request(endpoint(), ResumeJobDocument, { id: id! });
    output(data.resumeJob, [jobRow(data.resumeJob)]);
  });
jobs.command('retire <id>').action(async (id: string) => {
  const data = await request(endpoint(), RetireJobDocument, { id });
  output(data.retireJob, [jobRow(data.retireJob)]);
});
jobs.command('run <id>').description('run now (AD_HOC with --payload)').option('--payload <json>').action(async (id: string, o: { payload?: string }) => {
  const data = await request(endpoint(), RunJobNowDocument, { id, payload: json(o.payload, '--payload') });
  output(data.runJobNow, [{ id: data.runJobNow.id, status: data.runJobNow.status, trigger: data.runJobNow.triggerType }]);
});
/**
 * Jobs per page the CLI asks for: a row of JobFields costs one per field (about 60, more as jobs
 * gain fields), so a page stays well within the API's cost limit (25,000); `liveJobs` pages on.
 */
const JOBS_PAGE = 250;
/**
 * Live jobs per page `liveJobs` asks for: the server's largest page (500). A row of
 * JobDefinitionFields costs 8 (its columns 1, `retry` 2, `after` 4), and the server computes
 * nothing per row for it: a page of 10,000 jobs' definitions is 20 round trips.
 */
const LIVE_JOBS_PAGE = 500;

jobs.command('versions <key>').description('every version of a job').action(async (key: string) => {
  const data = await request(endpoint(), JobsDocument, { filter: { key, status: ['ACTIVE', 'PAUSED', 'RETIRED'] as JobStatus[] }, first: JOBS_PAGE });
  const nodes = data.jobs.edges.map((e) => e.node).sort((a, b) => a.version - b.version);
  output(nodes, nodes.map(jobRow));
});

// --- calendars -----------------------------------------------------------------------------------
const calendars = program.command('calendars').description('exclusion calendars (set them in a jobs file: cronql apply)');
const calendarRow = (c: CalendarFieldsFragment) => ({
  name: c.name,
  zone: c.timezone,
  dates: c.dates.length,
  yearly: c.yearly.length,
  daily: c.dailyWindows.map((w) => `${w.start}-${w.end}`).join(' ') || null,
  windows: c.windows.length,
  lastDate: c.lastDate ?? null,
  warning: c.runsOutSoon ? 'dated exclusions run out within 60 days' : null,
  usedBy: c.usedBy.length,
});
calendars.command('list').action(async () => {
  const data = await request(endpoint(), CalendarsDocument, {});
  output(data.calendars, data.calendars.map(calendarRow));
});
calendars.command('get <name>').action(async (name: string) => {
  const found = (await request(endpoint(), CalendarsDocument, {})).calendars.find((c) => c.name === name);
  if (!found) throw new CliError('NOT_FOUND', `no calendar named ${name}`);
  output(found, [calendarRow(found)]);
});
calendars.command('delete <name>').description('refused while a live job names it (CALENDAR_IN_USE)').action(async (name: string) => {
  const data = await request(endpoint(), DeleteCalendarDocument, { name });
  output({ deleted: data.deleteCalendar }, [{ name, deleted: data.deleteCalendar ? 'yes' : 'no (there was none)' }]);
});

/** A calendar of the server as the file compares it. */
const liveCalendar = (c: CalendarFieldsFragment): Required<CalendarSpec> =>
  calendarDefinition({ name: c.name, timezone: c.timezone, description: c.description, dates: c.dates, yearly: c.yearly, dailyWindows: c.dailyWindows, windows: c.windows });

// --- pools ---------------------------------------------------------------------------------------
const pools = program.command('pools').description('concurrency pools: a limit shared by the jobs that name one (also under "pools:" in a jobs file)');
pools.command('list').action(async () => {
  const data = await request(endpoint(), ConcurrencyPoolsDocument, {});
  output(data.concurrencyPools, data.concurrencyPools.map((p) => ({ name: p.name, limit: p.limit, running: p.running, waiting: p.waiting, jobs: p.jobs.length })));
});
pools.command('set <name> <limit>').description('create the pool or set its limit').action(async (name: string, limit: string) => {
  const p = (await request(endpoint(), SetConcurrencyPoolDocument, { name, limit: Number(limit) })).setConcurrencyPool;
  output(p, [{ name: p.name, limit: p.limit, running: p.running, waiting: p.waiting, jobs: p.jobs.length }]);
});
pools.command('delete <name>').description('refused while a live job names it (POOL_IN_USE)').action(async (name: string) => {
  const data = await request(endpoint(), DeleteConcurrencyPoolDocument, { name });
  output({ deleted: data.deleteConcurrencyPool }, [{ name, deleted: data.deleteConcurrencyPool ? 'yes' : 'no (there was none)' }]);
});

// --- runs ----------------------------------------------------------------------------------------
const runs = program.command('runs').description('run history');
const runRow = (r: { id: string; jobKey: string; status: string; triggerType: string; scheduledAt: string; durationMs?: number | null; failureCode?: string | null }) => ({
  id: r.id, job: r.jobKey, status: r.status, trigger: r.triggerType, slot: r.scheduledAt, ms: r.durationMs ?? null, code: r.failureCode ?? null,
});
runs
  .command('list')
  .option('--job <id>')
  .option('--key <key>')
  .option('--status <status...>')
  .option('--first <n>', 'at most this many', '50')
  .action(async (o: { job?: string; key?: string; status?: string[]; first: string }) => {
    const data = await request(endpoint(), RunsDocument, { filter: { jobId: o.job, jobKey: o.key, status: o.status as RunStatus[] | undefined }, first: Number(o.first) });
    const nodes = data.runs.edges.map((e) => e.node);
    output(nodes, nodes.map(runRow));
  });
runs.command('get <id>').action(async (id: string) => {
  const data = await request(endpoint(), RunDocument, { id });
  if (!data.run) throw new CliError('NOT_FOUND', `no run with id ${id}`);
  output(data.run, [runRow(data.run)]);
});
runs.command('cancel <id>').action(async (id: string) => {
  const data = await request(endpoint(), CancelRunDocument, { id });
  output(data.cancelRun, [runRow(data.cancelRun)]);
});
runs
  .command('logs <id>')
  .description("the lines the run's handler wrote with ctx.log, oldest first (docs/run-logs.md)")
  .option('--follow', 'then print its lines as they are written, until the run ends')
  .action(async (id: string, o: { follow?: boolean }) => {
    let last = 0;
    const show = (l: RunLogLineFieldsFragment) => {
      if (l.sequence <= last) return; // had it already (a page and the stream overlap)
      last = l.sequence;
      console.log(asJson() ? JSON.stringify(l) : `${l.at}  ${l.level.toUpperCase().padEnd(5)}  ${l.message}${l.fields == null ? '' : `  ${JSON.stringify(l.fields)}`}`);
    };
    /** Prints every line after the last printed, a page at a time. */
    const catchUp = async () => {
      for (;;) {
        const data: RunLogPageQuery = await request(endpoint(), RunLogPageDocument, { id, first: 500, after: last ? String(last) : null });
        if (!data.run) throw new CliError('NOT_FOUND', `no run with id ${id}`);
        for (const line of data.run.logs.nodes) show(line);
        if (!data.run.logs.pageInfo.hasNextPage) return;
      }
    };
    if (!o.follow) return catchUp();
    // The stream starts when the server has subscribed, which it does not acknowledge: a streamed
    // line past the next one expected means lines were written in between (read them first), and
    // once the stream has completed the pages are read once more. One step at a time, in order.
    let steps: Promise<void> = catchUp();
    steps.catch(() => {}); // reported below, after the stream (which fails the same way for an unknown run)
    await subscribe(
      endpoint(),
      RunLogLinesDocument,
      { runId: id },
      ({ runLogs: line }) => {
        steps = steps.then(async () => {
          if (line.sequence > last + 1) await catchUp();
          show(line);
        });
        return true;
      },
      (stop) => process.once('SIGINT', stop),
    );
    await steps.then(catchUp);
  });
runs
  .command('tail')
  .description('print run changes as they happen (Ctrl-C to stop)')
  .option('--job <id>')
  .option('--key <key>')
  .option('--status <status...>')
  .option('--count <n>', 'stop after this many changes')
  .action(async (o: { job?: string; key?: string; status?: string[]; count?: string }) => {
    let left = o.count === undefined ? Infinity : Number(o.count);
    await subscribe(
      endpoint(),
      RunChangedDocument,
      { filter: { jobId: o.job, jobKey: o.key, status: o.status as RunStatus[] | undefined } },
      ({ runChanged: change }) => {
        if (asJson()) console.log(JSON.stringify(change));
        else console.log(`${new Date().toISOString()}  ${change.run.jobKey}  ${change.previousStatus ?? '∅'} → ${change.run.status}  ${change.run.id}`);
        return --left > 0;
      },
      (stop) => process.once('SIGINT', stop),
    );
  });

// --- schedules and targets -------------------------------------------------------------------------
program.command('targets').description('the targets jobs may name').action(async () => {
  const data = await request(endpoint(), TargetsDocument, {});
  output(data.targets, data.targets.map((t) => ({ name: t.name, description: t.description })));
});
program
  .command('preview <cron>')
  .description('the next instants of a cron expression')
  .option('--tz <zone>', 'IANA time zone', 'UTC')
  .option('--count <n>', 'how many', '5')
  .action(async (cron: string, o: { tz: string; count: string }) => {
    const data = await request(endpoint(), PreviewScheduleDocument, { cronExpression: cron, timezone: o.tz, count: Number(o.count) });
    if (!asJson()) console.log(data.describeSchedule);
    output({ description: data.describeSchedule, next: data.previewSchedule }, data.previewSchedule.map((at) => ({ at })));
  });
program
  .command('parse <text>')
  .description('plain English to a cron expression ("every weekday at 9am", "every 5 minutes in Europe/Berlin") or an interval ("every 45 minutes")')
  .option('--tz <zone>', 'IANA time zone, unless the text names one', 'UTC')
  .action(async (text: string, o: { tz: string }) => {
    const data = await request(endpoint(), ParseScheduleDocument, { text, timezone: o.tz });
    const p = data.parseSchedule;
    if (!asJson()) console.log(`${p.cronExpression ?? `every ${p.every}`}  (${p.scheduleType === 'INTERVAL' ? 'absolute time' : p.timezone})  ${p.description}`);
    output(p, p.next.map((at) => ({ at })));
  });

program
  .command('upcoming')
  .description('every job\'s slots that will run in a window, in time order ("what runs tonight?")')
  .option('--from <when>', 'the window\'s start: an ISO 8601 instant or +30m, +12h, +2d (default: now)')
  .requiredOption('--to <when>', 'the window\'s end: an ISO 8601 instant or +30m, +12h, +2d')
  .option('--key-contains <text>', 'only jobs whose key contains this')
  .option('--limit <n>', 'at most this many slots', '100')
  .action(async (o: { from?: string; to: string; keyContains?: string; limit: string }) => {
    const limit = Number(o.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new CliError('BAD_USER_INPUT', '--limit must be a positive whole number');
    const vars = { from: o.from ? moment(o.from, '--from') : undefined, to: moment(o.to, '--to'), filter: o.keyContains ? { keyContains: o.keyContains } : undefined };
    const slots: { slot: string; dueAt: string; job: { id: string; key: string; target: string } }[] = [];
    let after: string | null | undefined;
    do {
      const data = await request(endpoint(), UpcomingDocument, { ...vars, first: Math.min(500, limit - slots.length), after });
      slots.push(...data.upcoming.nodes);
      after = data.upcoming.pageInfo.hasNextPage ? data.upcoming.pageInfo.endCursor : null;
    } while (after && slots.length < limit);
    output(slots, slots.map((s) => ({ slot: s.slot, dueAt: s.dueAt === s.slot ? '' : s.dueAt, key: s.job.key, target: s.job.target })));
  });

/** An instant given on the command line: from now (+30m, +12h, +2d), or as `instant` reads it. */
function moment(text: string, option: string): string {
  const relative = /^\+(\d+)(s|m|h|d)$/.exec(text.trim());
  if (!relative) return instant(text, option);
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[relative[2] as 's' | 'm' | 'h' | 'd'];
  return new Date(Date.now() + Number(relative[1]) * unit).toISOString();
}

// --- backfill ----------------------------------------------------------------------------------
const SCOPES: BackfillScope[] = ['MISSING', 'NOT_SUCCEEDED', 'ALL'];
/** An instant the API takes: ISO 8601 (a date alone is its midnight, UTC). */
function instant(value: string, flag: string): string {
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw new CliError('BAD_USER_INPUT', `${flag}: not an instant: ${value} (ISO 8601, e.g. 2026-11-24T09:00:00Z)`);
  return at.toISOString();
}
const backfillRow = (b: BackfillFieldsFragment) => ({
  id: b.id,
  job: `${b.job.key} v${b.job.version}`,
  state: b.state,
  scope: b.scope,
  slots: b.slots.length,
  skippedExisting: b.skippedExisting,
  created: b.created,
});
program
  .command('backfill <key>')
  .description("plan a job's past slots of [from, to] by scope and, without --dry-run, run them oldest first, one at a time (trigger BACKFILL)")
  .requiredOption('--from <instant>', 'first instant of the range (ISO 8601; included)')
  .requiredOption('--to <instant>', 'last instant of the range (ISO 8601; included; not in the future)')
  .addOption(new Option('--scope <scope>', 'which slots: MISSING (no run), NOT_SUCCEEDED (also failed or canceled), ALL').choices(SCOPES).default('NOT_SUCCEEDED'))
  .option('--dry-run', 'print the plan only; nothing is written')
  .option('--reason <text>', 'why (recorded with the backfill)', 'backfill from the command line')
  .action(async (key: string, o: { from: string; to: string; scope: BackfillScope; dryRun?: boolean; reason: string }) => {
    const found = await request(endpoint(), JobsDocument, { filter: { key, status: ['ACTIVE', 'PAUSED'] as JobStatus[] }, first: 1 });
    const live = found.jobs.edges[0]?.node;
    if (!live) throw new CliError('NOT_FOUND', `no live job with key ${key}`);
    const data = await request(endpoint(), BackfillJobDocument, {
      id: live.id,
      from: instant(o.from, '--from'),
      to: instant(o.to, '--to'),
      scope: o.scope,
      dryRun: Boolean(o.dryRun),
      reason: o.reason,
    });
    const b = data.backfillJob;
    if (!asJson()) {
      console.log(`${o.dryRun ? 'would run' : 'runs'} ${b.slots.length} slot(s) of ${key} (${b.scope}); ${b.skippedExisting} left out`);
      for (const at of b.slots.slice(0, 20)) console.log(`  ${at}`);
      if (b.slots.length > 20) console.log(`  … and ${b.slots.length - 20} more`);
    }
    // A dry run's plan is never stored: its id names nothing, so the table leaves it out.
    const { id: _unstored, ...plan } = backfillRow(b);
    output(b, [o.dryRun ? plan : backfillRow(b)]);
  });

// --- jobs as code ----------------------------------------------------------------------------------
const iso = (v: unknown): string | null => (v ? new Date(v as string).toISOString() : null);
const liveDefinition = (j: LiveJob): Definition => ({
  target: j.target,
  scheduleType: j.scheduleType as Definition['scheduleType'],
  cronExpression: j.cronExpression ?? null,
  cronExpressions: j.cronExpressions && j.cronExpressions.length > 1 ? j.cronExpressions : null,
  runAt: iso(j.runAt),
  every: j.every ?? null,
  anchorAt: iso(j.anchorAt),
  timezone: j.timezone,
  startAt: iso(j.startAt),
  endAt: iso(j.endAt),
  ...settingsDefinition(j),
});

/** The live definition compared with a file's: an anchor the file does not give is the server's to keep. */
const comparable = (live: Definition, spec: JobSpec): Definition => (spec.anchorAt === undefined ? { ...live, anchorAt: null } : live);

/** The live (ACTIVE or PAUSED) version of every job, by key. */
async function liveJobs(): Promise<Map<string, LiveJob>> {
  const live = new Map<string, LiveJob>();
  let after: string | null | undefined;
  do {
    const data = await request(endpoint(), LiveJobsDocument, { filter: { status: ['ACTIVE', 'PAUSED'] as JobStatus[] }, first: LIVE_JOBS_PAGE, after });
    for (const node of data.jobs.nodes) live.set(node.key, node);
    after = data.jobs.pageInfo.hasNextPage ? data.jobs.pageInfo.endCursor : null;
  } while (after);
  return live;
}

/**
 * A jobs file parsed and every job checked against the server's rules and targets, before
 * anything is changed; every bad job is reported, one line each (file, key, field, code).
 */
async function checkedJobsFile(path: string): Promise<JobsFile> {
  const file = await parseJobsFile(path, await readFile(path, 'utf8'));
  const { targets } = await request(endpoint(), TargetsDocument, {});
  // Loaded here: the server's rules (and their schedule code) cost every other command ~0.1 s.
  const { checkJobs } = await import('./jobs-check.js');
  const problems = checkJobs(path, file, targets.map((t) => t.name), new Date());
  if (problems.length) throw new CliErrors(problems);
  return file;
}

program
  .command('validate <file>')
  .description("check a jobs file against the server's rules and targets; change nothing")
  .action(async (path: string) => {
    const file = await checkedJobsFile(path);
    output({ ok: true, jobs: file.jobs.length }, [{ ok: 'yes', jobs: file.jobs.length }]);
  });

/** Largest batch of new jobs `apply` sends in one call: half the server's default request body limit (1 MiB). */
const MAX_BATCH_BYTES = 512 * 1024;

program
  .command('apply <file>')
  .description('create or version the jobs of a YAML/JSON file; unchanged ones are left alone')
  .option('--prune', "retire the namespace's live jobs the file no longer lists")
  .option('--dry-run', 'print the plan, change nothing')
  .option('--batch-size <n>', 'new jobs (or new versions) made per call, each call all or none (at most 1000)', '500')
  .action(async (path: string, o: { prune?: boolean; dryRun?: boolean; batchSize: string }) => {
    const batchSize = Number(o.batchSize);
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 1_000) throw new CliError('BAD_USER_INPUT', '--batch-size must be an integer from 1 to 1000');
    const file = await checkedJobsFile(path);
    const live = await liveJobs();
    const plan: { action: 'set-calendar' | 'set-pool' | 'create' | 'version' | 'unchanged' | 'retire'; key: string; fields?: string[] }[] = [];
    // Calendars first: a job may name one the file defines. A name neither has is refused before any change.
    const serverCalendars = new Map((await request(endpoint(), CalendarsDocument, {})).calendars.map((c) => [c.name, liveCalendar(c)]));
    const fileCalendars = new Map((file.calendars ?? []).map((c) => [c.name, calendarDefinition(c)]));
    for (const [name, wanted] of fileCalendars) {
      const current = serverCalendars.get(name);
      if (!current || canonical(current) !== canonical(wanted)) plan.push({ action: 'set-calendar', key: name });
    }
    for (const spec of file.jobs) {
      const missing = (spec.calendars ?? []).filter((n) => !fileCalendars.has(n) && !serverCalendars.has(n));
      if (missing.length) throw new CliError('UNKNOWN_CALENDAR', `${path}: job "${spec.key}", field "calendars": calendar "${missing[0]}" does not exist; define it under "calendars:" in the file`);
    }
    // Pools too: a job may name one the file defines; a name neither has is refused before any change.
    const serverPools = new Map((await request(endpoint(), ConcurrencyPoolsDocument, {})).concurrencyPools.map((p) => [p.name, p.limit]));
    const filePools = new Map((file.pools ?? []).map((p) => [p.name, p.limit]));
    for (const [name, limit] of filePools) if (serverPools.get(name) !== limit) plan.push({ action: 'set-pool', key: name });
    for (const spec of file.jobs) {
      const pool = spec.concurrencyPool;
      if (typeof pool === 'string' && !filePools.has(pool) && !serverPools.has(pool)) {
        throw new CliError('UNKNOWN_POOL', `${path}: job "${spec.key}", field "concurrencyPool": pool "${pool}" does not exist; define it under "pools:" in the file`);
      }
    }
    // Upstreams first: an AFTER job's upstreams must exist when it is created.
    for (const spec of upstreamsFirst(file.jobs)) {
      const current = live.get(spec.key);
      if (!current) plan.push({ action: 'create', key: spec.key });
      else {
        const fields = changedFields(comparable(liveDefinition(current), spec), specDefinition(spec));
        plan.push(fields.length ? { action: 'version', key: spec.key, fields } : { action: 'unchanged', key: spec.key });
      }
    }
    if (o.prune) {
      if (!file.namespace) throw new CliError('BAD_FILE', `${path}: --prune needs a "namespace:" in the file (only its jobs are retired)`);
      const listed = new Set(file.jobs.map((j) => j.key));
      for (const key of live.keys()) if (key.startsWith(`${file.namespace}.`) && !listed.has(key)) plan.push({ action: 'retire', key });
    }
    if (!o.dryRun) {
      const { jobError, jobInput } = await import('./jobs-check.js');
      const done: string[] = [];
      const fail = (step: { action: string; key: string }, err: unknown): never => {
        if (err instanceof CliError && err.code === 'UNREACHABLE') throw err;
        // Only a rule that depends on the server (see jobs-check.ts) or a concurrent change gets
        // here: every job passed the rules before the first change. Say what was already done.
        const failed = jobError(path, step.key, err);
        const before = done.length === 0 ? 'nothing was changed' : `applied before it: ${done.length > 10 ? `${done.length} changes, ${done.slice(0, 3).join(', ')} … ${done[done.length - 1]}` : done.join(', ')}`;
        throw new CliError(failed.code, `${failed.message} (${step.action} failed; ${before}; nothing after it)`);
      };
      const steps = plan.filter((step) => step.action !== 'unchanged');
      const specs = new Map(file.jobs.map((j) => [j.key, j]));
      for (let i = 0; i < steps.length; ) {
        const step = steps[i];
        if (step.action === 'create' || step.action === 'version') {
          // New jobs, and new versions of changed ones, go a batch at a time, each batch all or
          // none (one transaction on the server): the run of steps of one action up to the next
          // other step, --batch-size jobs and half the server's default body limit at most.
          const action = step.action;
          const batch: { key: string; input: unknown }[] = [];
          let bytes = 0;
          for (; i < steps.length && steps[i].action === action && batch.length < batchSize; i++) {
            const key = steps[i].key;
            const fields = jobInput(specs.get(key)!) as Omit<CreateJobInput, 'key'>;
            const input = action === 'create' ? { key, ...fields } : { id: live.get(key)!.id, input: fields };
            const size = JSON.stringify(input).length;
            if (batch.length > 0 && bytes + size > MAX_BATCH_BYTES) break;
            batch.push({ key, input });
            bytes += size;
          }
          try {
            if (action === 'create') await request(endpoint(), CreateJobsDocument, { inputs: batch.map((b) => b.input as CreateJobInput) });
            else await request(endpoint(), CreateJobVersionsDocument, { inputs: batch.map((b) => b.input as CreateJobVersionInput) });
          } catch (err) {
            // The server names the input it refused; its message without that prefix (the line names the job).
            const key = err instanceof CliError && typeof err.details?.key === 'string' ? err.details.key : batch[0].key;
            const cause = err instanceof CliError ? new CliError(err.code, err.message.replace(/^job ".*?" \(input \d+\): /, ''), err.details) : err;
            fail({ action, key }, cause);
          }
          done.push(...batch.map((b) => `${action} ${b.key}`));
          continue;
        }
        if (step.action === 'set-pool') {
          try {
            await request(endpoint(), SetConcurrencyPoolDocument, { name: step.key, limit: filePools.get(step.key)! });
          } catch (err) {
            const e = err as CliError;
            throw new CliError(e.code ?? 'BAD_FILE', `${path}: pool "${step.key}": ${e.message} (set-pool failed; ${done.length ? `applied before it: ${done.join(', ')}` : 'nothing was changed'})`);
          }
          done.push(`set-pool ${step.key}`);
          i++;
          continue;
        }
        if (step.action === 'set-calendar') {
          try {
            await request(endpoint(), SetCalendarDocument, { input: fileCalendars.get(step.key)! });
          } catch (err) {
            const e = err as CliError;
            throw new CliError(e.code ?? 'BAD_FILE', `${path}: calendar "${step.key}": ${e.message} (set-calendar failed; ${done.length ? `applied before it: ${done.join(', ')}` : 'nothing was changed'})`);
          }
          done.push(`set-calendar ${step.key}`);
          i++;
          continue;
        }
        try {
          if (step.action === 'retire') await request(endpoint(), RetireJobDocument, { id: live.get(step.key)!.id });
        } catch (err) {
          fail(step, err);
        }
        done.push(`${step.action} ${step.key}`);
        i++;
      }
    }
    output({ dryRun: Boolean(o.dryRun), plan }, plan.map((p) => ({ action: p.action, key: p.key, fields: p.fields?.join(',') ?? null })));
  });

program
  .command('export')
  .description('write the live jobs as a jobs file (YAML, or JSON with --json)')
  .option('--namespace <prefix>', 'only keys starting with "<prefix>."')
  .option('--out <file>', 'write here instead of printing')
  .action(async (o: { namespace?: string; out?: string }) => {
    const live = [...(await liveJobs()).values()].filter((j) => !o.namespace || j.key.startsWith(`${o.namespace}.`)).sort((a, b) => a.key.localeCompare(b.key));
    // The calendars the exported jobs name, so the file applies on an empty server.
    const named = new Set(live.flatMap((j) => j.calendars ?? []));
    const cals = named.size ? (await request(endpoint(), CalendarsDocument, {})).calendars.filter((c) => named.has(c.name)).map((c) => calendarSpec(liveCalendar(c))) : [];
    // And the pools they name.
    const pooled = new Set(live.map((j) => j.concurrencyPool).filter((p): p is string => typeof p === 'string'));
    const pls = pooled.size ? (await request(endpoint(), ConcurrencyPoolsDocument, {})).concurrencyPools.filter((p) => pooled.has(p.name)).map((p) => ({ name: p.name, limit: p.limit })) : [];
    const file = {
      ...(o.namespace ? { namespace: o.namespace } : {}),
      ...(cals.length ? { calendars: cals } : {}),
      ...(pls.length ? { pools: pls } : {}),
      jobs: live.map((j) => definitionSpec(j.key, liveDefinition(j))),
    };
    const text = asJson() ? `${JSON.stringify(file, null, 2)}\n` : await toYaml(file);
    if (o.out) await writeFile(o.out, text);
    else process.stdout.write(text);
  });

// --- the acceptance check (docs/product.md) ---------------------------------------------------------
program
  .command('verify')
  .description('create (or reuse) the */5 acceptance job, run it once, and confirm the run SUCCEEDED')
  .option('--wait-slot', 'also wait for its next scheduled slot to succeed')
  .option('--timeout <seconds>', 'give up after', '60')
  .action(async (o: { waitSlot?: boolean; timeout: string }) => {
    const key = 'cronql.verify';
    const spec = { key, target: 'log', cron: '*/5 * * * *', payload: { message: 'cronql verify' } };
    let job: ListedJob | undefined = (await request(endpoint(), JobsDocument, { filter: { key, status: ['ACTIVE', 'PAUSED'] as JobStatus[] }, first: 1 })).jobs.edges[0]?.node;
    if (!job) job = (await request(endpoint(), CreateJobDocument, { input: { key, target: 'log', scheduleType: 'RECURRING' as never, cronExpression: spec.cron, payload: spec.payload } })).createJob;
    else if (job.status === 'PAUSED') job = (await request(endpoint(), ResumeJobDocument, { id: job.id })).resumeJob;
    const deadline = Date.now() + Number(o.timeout) * 1000;
    const waitFor = async (pick: () => Promise<{ status: string; id: string } | undefined>, what: string) => {
      for (;;) {
        const run = await pick();
        if (run && !['PENDING', 'RUNNING'].includes(run.status)) {
          if (run.status !== 'SUCCEEDED') throw new CliError('VERIFY_FAILED', `${what} ended ${run.status} (run ${run.id})`);
          return run;
        }
        if (Date.now() > deadline) throw new CliError('VERIFY_TIMEOUT', `${what} did not finish within ${o.timeout} s`);
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    const now = (await request(endpoint(), RunJobNowDocument, { id: job.id })).runJobNow;
    const manual = await waitFor(async () => (await request(endpoint(), RunDocument, { id: now.id })).run ?? undefined, 'the run-now');
    let scheduled: { id: string } | undefined;
    if (o.waitSlot) {
      const slot = job.nextRunAt;
      scheduled = await waitFor(async () => {
        const data = await request(endpoint(), RunsDocument, { filter: { jobId: job!.id, triggerType: ['SCHEDULED'] as never, scheduledAfter: new Date(new Date(slot ?? Date.now()).getTime() - 1).toISOString() }, first: 1 });
        return data.runs.edges[0]?.node;
      }, `the slot ${slot}`);
    }
    output({ ok: true, jobId: job.id, runNow: manual.id, scheduled: scheduled?.id ?? null }, [{ ok: 'yes', job: job.id, run: manual.id, slot: scheduled?.id ?? null }]);
  });

// --- tokens --------------------------------------------------------------------------------------
const tokens = program.command('tokens').description('named API tokens (ADMIN): one per person or service, each revocable alone');
const tokenRow = (t: ApiTokenFieldsFragment) => ({
  id: t.id, name: t.name, role: t.role, selector: t.labelSelector ?? null, created: t.createdAt, expires: t.expiresAt ?? null,
  lastUsed: t.lastUsedAt ?? null, revoked: t.revokedAt ?? null,
});
tokens
  .command('create')
  .description('creates a token and prints its secret, once: keep it now')
  .requiredOption('--name <name>', 'what createdBy and the audit log will record for its calls')
  .requiredOption('--role <role>', 'ADMIN, OPERATOR (pause, resume, run, cancel, skip, backfill; no job changes) or VIEWER')
  .option('--selector <selector>', 'only the jobs with these labels, e.g. team=billing (OPERATOR and VIEWER only)')
  .option('--expires <instant>', 'refused from this instant (ISO 8601)')
  .action(async (o: { name: string; role: string; selector?: string; expires?: string }) => {
    const role = o.role.toUpperCase();
    if (!['ADMIN', 'OPERATOR', 'VIEWER'].includes(role)) throw new CliError('BAD_USER_INPUT', `--role: ADMIN, OPERATOR or VIEWER, not ${o.role}`);
    const data = await request(endpoint(), CreateApiTokenDocument, {
      name: o.name,
      role: role as TokenRole,
      labelSelector: o.selector,
      expiresAt: o.expires ? instant(o.expires, '--expires') : undefined,
    });
    const { token, secret } = data.createApiToken;
    if (asJson()) {
      output({ token, secret });
      return;
    }
    output(token, [tokenRow(token)]);
    console.log(`\nsecret (shown only this once): ${secret}`);
  });
tokens.command('list').description('every named token, revoked ones included (never a secret)').action(async () => {
  const data = await request(endpoint(), ApiTokensDocument, {});
  output(data.apiTokens, data.apiTokens.map(tokenRow));
});
tokens.command('revoke <id>').description('refused from its next request on every instance; its open WebSockets closed').action(async (id: string) => {
  const data = await request(endpoint(), RevokeApiTokenDocument, { id });
  output(data.revokeApiToken, [tokenRow(data.revokeApiToken)]);
});
program.command('whoami').description('the token in use: its name, role and scope').action(async () => {
  const data = await request(endpoint(), WhoamiDocument, {});
  if (!data.whoami) throw new CliError('NOT_FOUND', 'the server does not know this token');
  output(data.whoami, [tokenRow(data.whoami)]);
});

// --- audit ---------------------------------------------------------------------------------------
program
  .command('audit')
  .description('the audit log, newest first (ADMIN): who changed what, when')
  .option('--actor <name>', "a token's name (admin, a named token's)")
  .option('--job <key>', 'one job key')
  .option('--action <name...>', 'mutation names, e.g. pauseJob pauseJobs')
  .option('--since <when>', 'from this instant: ISO 8601 (a date alone is its midnight, UTC), or ago: 30m, 12h, 7d')
  .option('--until <when>', 'before this instant (ISO 8601)')
  .option('--limit <n>', 'entries at most', '50')
  .action(async (o: { actor?: string; job?: string; action?: string[]; since?: string; until?: string; limit: string }) => {
    const limit = Number(o.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new CliError('BAD_USER_INPUT', `--limit: a whole number of at least 1, not ${o.limit}`);
    const filter = { actor: o.actor, jobKey: o.job, action: o.action, after: o.since ? ago(o.since, '--since') : undefined, before: o.until ? instant(o.until, '--until') : undefined };
    const entries: NonNullable<Awaited<ReturnType<typeof auditPage>>>['nodes'] = [];
    let after: string | null = null;
    let total = 0;
    do {
      const page = await auditPage(filter, Math.min(500, limit - entries.length), after);
      total = page.totalCount;
      entries.push(...page.nodes);
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (after && entries.length < limit);
    output(
      { totalCount: total, entries },
      entries.map((e) => ({ at: e.at, actor: e.actor, action: e.action, job: e.jobKey ?? null, subject: e.subject ?? null, details: e.details ?? null })),
    );
  });
const auditPage = async (filter: Record<string, unknown>, first: number, after: string | null) =>
  (await request(endpoint(), AuditLogDocument, { filter, first, after })).auditLog;
/** An instant in the past: ISO 8601, or that long ago (30m, 12h, 7d). */
function ago(text: string, option: string): string {
  const relative = /^(\d+)(s|m|h|d)$/.exec(text.trim());
  if (!relative) return instant(text, option);
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[relative[2] as 's' | 'm' | 'h' | 'd'];
  return new Date(Date.now() - Number(relative[1]) * unit).toISOString();
}

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof CliErrors) for (const e of err.errors) console.error(`error ${e.code}: ${e.message}`);
  else if (err instanceof CliError) console.error(`error ${err.code}: ${err.message}`);
  else console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});

import { AfterMode, CatchUpPolicy, OverlapPolicy } from './enums.js';
import { MAX_AFTER_WINDOW_SECONDS, MAX_UPSTREAMS, type Dependency } from './dependencies.js';
import type { RetryPolicy } from './job.js';
import { CALENDAR_NAME } from '../schedule/calendar.js';
import { CHANNEL_NAME, MAX_NOTIFY } from './notifications.js';
import { POOL_NAME } from './pools.js';
import type { Labels } from './label-selector.js';

/**
 * A job's settings — what it does and how, beside its schedule — each written once, here: name,
 * column, kind (its GraphQL and database type follow), whether null is a value of its own, the
 * default, the bounds, the rule that ties it to another setting, and its descriptions. The entity
 * (db/entities/job-definition.entity.ts), the row mapper (domain/job.ts), validation and the new
 * version's copy (services/job-rules.ts), the GraphQL `Job` type and job inputs, and the jobs file
 * (cli/jobs-file.ts) are all read from this table: a new setting is one entry here, a migration,
 * and whatever uses it. Rules that involve the schedule (jitter within the shortest interval) or
 * the server's options (payload size) stay in services/job-rules.ts.
 */

/** The error code of a setting's bad value (catch-up and auto-pause predate INVALID_POLICY). */
type ErrorCode = 'INVALID_POLICY' | 'BAD_USER_INPUT' | 'INVALID_SCHEDULE';

/** The setting is meaningful only while `setting` is `value`: another value of it than the default is refused otherwise. */
export interface OnlyWith {
  setting: 'catchUp' | 'overlap' | 'afterMode';
  value: string;
  /** Why, for the error message. */
  why?: string;
}

interface SettingBase {
  /** The column (the retry policy: its five `retry_*` columns). */
  column: string;
  description: {
    /** On the `Job` type. */
    job?: string;
    /** On the job inputs (CreateJobInput, NewJobVersionInput). */
    input?: string;
  };
}

export interface IntSetting extends SettingBase {
  kind: 'int';
  /** Null is stored and shown as null ("none"); otherwise null or omitted means the default. */
  nullable: boolean;
  default: number | null;
  min: number;
  max: number;
  code: ErrorCode;
  only?: OnlyWith;
}

export interface EnumSetting extends SettingBase {
  kind: 'enum';
  values: Record<string, string>;
  default: string;
  code: ErrorCode;
}

export interface JsonSetting extends SettingBase {
  kind: 'json';
  nullable: true;
  default: null;
}

/** The retry policy: one value of five columns, with its own rules (services/job-rules.ts). */
export interface RetrySetting extends SettingBase {
  kind: 'retry';
  nullable: true;
  default: null;
}

/**
 * A list of names of things defined elsewhere (calendars; notification channels): text[] NOT NULL
 * DEFAULT '{}', `[String!]!` on the `Job` type, `[String!]` on the inputs (omitted: the default,
 * or on a new version the replaced version's list; null: the empty list). Each name matches
 * `pattern`, at most `max` of them, each once (the order given is kept). Whether each exists is the
 * database's to say, at the write (`unknownCode`).
 */
export interface NamesSetting extends SettingBase {
  kind: 'names';
  nullable: false;
  default: readonly string[];
  max: number;
  pattern: RegExp;
  /** What a name names, for messages: "calendar". */
  of: string;
  /** The error code of a name nothing of that kind has (notify's: checked by the service, services/channel.service.ts). */
  unknownCode: 'UNKNOWN_CALENDAR' | 'UNKNOWN_CHANNEL';
  code: ErrorCode;
}

/**
 * An AFTER job's upstreams (domain/dependencies.ts): jsonb NOT NULL DEFAULT '[]', a list of
 * `{ jobKey, on }`; `[Dependency!]!` on the `Job` type (each upstream resolved to its current
 * version), `[DependencyInput!]` on the inputs (omitted: the default, or on a new version the
 * replaced version's list; null: the empty list). At most `max`, each key once. Whether each key
 * exists, and that no cycle forms, is the database's to say at the write (UNKNOWN_JOB,
 * DEPENDENCY_CYCLE).
 */
export interface DependenciesSetting extends SettingBase {
  kind: 'dependencies';
  nullable: false;
  default: readonly Dependency[];
  max: number;
  code: ErrorCode;
}


/**
 * The name of one thing defined elsewhere (a concurrency pool), or null: a nullable text column,
 * `String` on the `Job` type and the inputs (omitted: the default, or on a new version the
 * replaced version's; null: none). Whether it exists is the database's to say, at the write
 * (`unknownCode`).
 */
export interface NameSetting extends SettingBase {
  kind: 'name';
  nullable: true;
  default: null;
  pattern: RegExp;
  /** What the name names, for messages: "concurrency pool". */
  of: string;
  unknownCode: 'UNKNOWN_POOL';
  code: ErrorCode;
}

/**
 * A job's labels (domain/label-selector.ts: `validateLabels`): jsonb NOT NULL DEFAULT '{}', `JSON`
 * on the `Job` type (never null) and the inputs (omitted: `{}`, or on a new version the replaced
 * version's labels; null: none). Code INVALID_LABELS.
 */
export interface LabelsSetting extends SettingBase {
  kind: 'labels';
  nullable: false;
  default: Readonly<Labels>;
}

/** A free text (text NULL): null or omitted is none; at most `max` characters. */
export interface TextSetting extends SettingBase {
  kind: 'text';
  nullable: true;
  default: null;
  max: number;
  code: ErrorCode;
}

export type JobSettingSpec = IntSetting | EnumSetting | JsonSetting | RetrySetting | NamesSetting | DependenciesSetting | LabelsSetting | TextSetting | NameSetting;

/** The most calendars one job names. */
export const MAX_JOB_CALENDARS = 10;

/** The default of `captureBytes`, and its largest value. */
export const DEFAULT_CAPTURE_BYTES = 4_096;
export const MAX_CAPTURE_BYTES = 1_048_576;
export const MAX_TIMEOUT_SECONDS = 7 * 24 * 3600;
export const MAX_CONCURRENT_RUNS = 100;
/** The widest jitter window, whatever the schedule: a day (services/job-rules.ts also bounds it by the schedule). */
export const MAX_JITTER_SECONDS = 86_400;
export const MAX_PAUSE_AFTER_FAILURES = 1_000;
/** The longest per-job misfire grace: a day (as the server's CRONQL_MISFIRE_GRACE_MS). */
export const MAX_MISFIRE_GRACE_SECONDS = 86_400;
/** The largest `maxRuns`. */
export const MAX_MAX_RUNS = 1_000_000;
/** ALL: the most missed slots run per gap (the default when the job does not say). */
export const MAX_CATCH_UP_LIMIT = 1_000;
/** The longest `expectSuccessWithinSeconds`: 31 days. */
export const MAX_EXPECT_SUCCESS_SECONDS = 31 * 86_400;

/** The longest `description` and `owner`. */
export const MAX_DESCRIPTION_LENGTH = 2_000;
export const MAX_OWNER_LENGTH = 200;

/** The settings, in the order the jobs file and the CLI show them. */
export const JOB_SETTINGS = {
  labels: {
    kind: 'labels', column: 'labels', nullable: false, default: Object.freeze({}),
    description: {
      job: 'Labels: a flat object of string keys to string values, e.g. {"team": "billing"}; what labelSelector filters and bulk actions match.',
      input: 'Labels, e.g. {"team": "billing"}: keys [a-z0-9][a-z0-9._/-]{0,62}, values at most 63 of A-Z a-z 0-9 . _ / : @ + -, at most 32 (INVALID_LABELS). Null: none.',
    },
  },
  description: {
    kind: 'text', column: 'description', nullable: true, default: null, max: MAX_DESCRIPTION_LENGTH, code: 'BAD_USER_INPUT',
    description: { job: 'What the job is for, in words.', input: 'What the job is for, in words (at most 2000 characters); null: none.' },
  },
  owner: {
    kind: 'text', column: 'owner', nullable: true, default: null, max: MAX_OWNER_LENGTH, code: 'BAD_USER_INPUT',
    description: { job: 'Who answers for the job (a team, a person, an address).', input: 'Who answers for the job (at most 200 characters); null: none.' },
  },
  payload: { kind: 'json', column: 'payload', nullable: true, default: null, description: {} },
  timeoutSeconds: {
    kind: 'int', column: 'timeout_seconds', nullable: true, default: null, min: 1, max: MAX_TIMEOUT_SECONDS, code: 'BAD_USER_INPUT', description: {},
  },
  catchUp: {
    kind: 'enum', column: 'catch_up', values: CatchUpPolicy, default: CatchUpPolicy.NONE, code: 'BAD_USER_INPUT',
    description: { job: 'What becomes of slots missed while they could not fire.', input: 'What becomes of missed slots. Default NONE.' },
  },
  catchUpLimit: {
    kind: 'int', column: 'catch_up_limit', nullable: true, default: null, min: 1, max: MAX_CATCH_UP_LIMIT, code: 'BAD_USER_INPUT',
    only: { setting: 'catchUp', value: CatchUpPolicy.ALL },
    description: {
      job: 'ALL: at most this many missed slots of one gap run (null: 10).',
      input: 'ALL only: at most this many missed slots of one gap run (1–1000, default 10).',
    },
  },
  pauseAfterFailures: {
    kind: 'int', column: 'pause_after_failures', nullable: true, default: null, min: 1, max: MAX_PAUSE_AFTER_FAILURES, code: 'BAD_USER_INPUT',
    description: {
      job: 'cronql pauses the job after this many failed runs in a row; null: never.',
      input: 'cronql pauses the job after this many failed runs in a row (1–1000); null: never.',
    },
  },
  retry: {
    kind: 'retry', column: 'retry', nullable: true, default: null,
    description: { job: 'Null: a failed run is final (the default).', input: 'Retries with backoff; null: none (the default).' },
  },
  overlap: {
    kind: 'enum', column: 'overlap', values: OverlapPolicy, default: OverlapPolicy.SKIP, code: 'INVALID_POLICY',
    description: { job: 'What a slot does while a run of the job is active.', input: 'What a slot does while a run of the job is active. Default SKIP.' },
  },
  maxConcurrentRuns: {
    kind: 'int', column: 'max_concurrent_runs', nullable: false, default: 1, min: 1, max: MAX_CONCURRENT_RUNS, code: 'INVALID_POLICY',
    only: { setting: 'overlap', value: OverlapPolicy.ALLOW, why: 'the other policies run one at a time' },
    description: { job: 'ALLOW: how many runs at once (1 for the other policies).', input: 'ALLOW only: how many runs at once (1–100, default 1).' },
  },
  jitterSeconds: {
    kind: 'int', column: 'jitter_seconds', nullable: false, default: 0, min: 0, max: MAX_JITTER_SECONDS, code: 'INVALID_POLICY',
    description: {
      job: 'Each slot starts after a stable offset in [0, jitterSeconds) derived from the job and the slot; scheduledAt stays the slot.',
      input: 'Each slot starts after a stable offset in [0, jitterSeconds); at most the schedule’s shortest interval. Default 0.',
    },
  },
  heartbeatTimeoutSeconds: {
    kind: 'int', column: 'heartbeat_timeout_seconds', nullable: true, default: null, min: 1, max: MAX_TIMEOUT_SECONDS, code: 'BAD_USER_INPUT',
    description: {
      job: 'A RUNNING run whose handler has not beaten (ctx.heartbeat, ctx.progress) for this long fails HEARTBEAT_TIMEOUT; null: no heartbeat is required.',
      input: 'A RUNNING run silent this long (no ctx.heartbeat or ctx.progress, counted from its start) fails HEARTBEAT_TIMEOUT (1–604800 s); null: none (the default).',
    },
  },
  captureBytes: {
    kind: 'int', column: 'capture_bytes', nullable: false, default: DEFAULT_CAPTURE_BYTES, min: 0, max: MAX_CAPTURE_BYTES, code: 'INVALID_POLICY',
    description: {
      job: 'Bytes of an http response body the runs keep in their output (0–1048576).',
      input: 'http target: bytes of the response body kept in the output (0–1048576, default 4096).',
    },
  },
  maxRuns: {
    kind: 'int', column: 'max_runs', nullable: true, default: null, min: 1, max: MAX_MAX_RUNS, code: 'INVALID_SCHEDULE',
    description: {
      job: 'The job retires once this many of its scheduled runs have started (SKIPPED slots do not count); null: no limit.',
      input: 'Retire the job once this many scheduled runs have started (SKIPPED slots do not count; 1–1000000); null: no limit.',
    },
  },
  misfireGraceSeconds: {
    kind: 'int', column: 'misfire_grace_seconds', nullable: true, default: null, min: 1, max: MAX_MISFIRE_GRACE_SECONDS, code: 'INVALID_SCHEDULE',
    description: {
      job: 'How late a slot may still start before it is MISSED; null: the server’s CRONQL_MISFIRE_GRACE_MS.',
      input: 'How late a slot may still start before it is MISSED (1–86400 s); null: the server’s CRONQL_MISFIRE_GRACE_MS.',
    },
  },
  calendars: {
    kind: 'names', column: 'calendars', nullable: false, default: [], max: MAX_JOB_CALENDARS, pattern: CALENDAR_NAME,
    of: 'calendar', unknownCode: 'UNKNOWN_CALENDAR', code: 'BAD_USER_INPUT',
    description: {
      job: 'Exclusion calendars, by name: a slot any of them excludes is a SKIPPED run with code CALENDAR (details: calendar, rule).',
      input: 'Exclusion calendars, by name (at most 10; each must exist: UNKNOWN_CALENDAR). Null: none.',
    },
  },  notify: {
    kind: 'names', column: 'notify', nullable: false, default: [], max: MAX_NOTIFY, pattern: CHANNEL_NAME,
    of: 'notification channel', unknownCode: 'UNKNOWN_CHANNEL', code: 'BAD_USER_INPUT',
    description: {
      job: 'The notification channels this job alerts; empty: the default channels.',
      input: 'Notification channel names (at most 10; each must exist: UNKNOWN_CHANNEL); empty, null or omitted: the default channels.',
    },
  },
  concurrencyPool: {
    kind: 'name', column: 'concurrency_pool', nullable: true, default: null, pattern: POOL_NAME, of: 'concurrency pool',
    unknownCode: 'UNKNOWN_POOL', code: 'BAD_USER_INPUT',
    description: {
      job: 'The concurrency pool the job\'s runs share a limit in (setConcurrencyPool); null: none.',
      input: 'A concurrency pool, by name (it must exist: UNKNOWN_POOL): a run starts only while the pool has a free place, else waits PENDING. Null: none.',
    },
  },
  expectSuccessWithinSeconds: {
    kind: 'int', column: 'expect_success_within_seconds', nullable: true, default: null, min: 1, max: MAX_EXPECT_SUCCESS_SECONDS, code: 'BAD_USER_INPUT',
    description: {
      job: 'No SUCCEEDED run this long after a slot raises JOB_LATE; null: no deadline.',
      input: 'No SUCCEEDED run this long after a slot raises JOB_LATE (1–2678400 seconds); null: no deadline.',
    },
  },
  after: {
    kind: 'dependencies', column: 'after_jobs', nullable: false, default: [], max: MAX_UPSTREAMS, code: 'BAD_USER_INPUT',
    description: {
      job: 'AFTER jobs: the upstream jobs whose runs’ ends start this job, each at its current version (RETIRED when it has no live version).',
      input: 'AFTER jobs: the upstream jobs, by key (at most 20; each must exist: UNKNOWN_JOB; no cycle: DEPENDENCY_CYCLE). Null: none.',
    },
  },
  afterMode: {
    kind: 'enum', column: 'after_mode', values: AfterMode, default: AfterMode.ANY, code: 'BAD_USER_INPUT',
    description: {
      job: 'AFTER jobs: ANY runs after each upstream’s end as asked; ALL once every upstream ended as asked since the last run.',
      input: 'AFTER jobs: ANY (the default) or ALL of the upstreams.',
    },
  },
  afterWindowSeconds: {
    kind: 'int', column: 'after_window_seconds', nullable: true, default: null, min: 1, max: MAX_AFTER_WINDOW_SECONDS, code: 'BAD_USER_INPUT',
    only: { setting: 'afterMode', value: AfterMode.ALL },
    description: {
      job: 'afterMode ALL: the upstreams’ ends count only within this many seconds of the last one; null: since the last run, however long.',
      input: 'afterMode ALL only: the upstreams’ ends count within this many seconds of the last one (1–2678400); null: no window.',
    },
  },
} as const satisfies Record<string, JobSettingSpec>;

export type JobSettingName = keyof typeof JOB_SETTINGS;

/** The value a setting holds once valid. */
type ValueOf<S> = S extends { kind: 'int'; nullable: true }
  ? number | null
  : S extends { kind: 'int' }
    ? number
    : S extends { kind: 'enum'; values: infer E }
      ? E[keyof E]
      : S extends { kind: 'retry' }
        ? RetryPolicy | null
        : S extends { kind: 'names' }
          ? string[]
          : S extends { kind: 'dependencies' }
            ? Dependency[]
            : S extends { kind: 'labels' }
              ? Labels
              : S extends { kind: 'text' }
                ? string | null
                : S extends { kind: 'name' }
                  ? string | null
                  : unknown;

/** A job's settings, valid. */
export type JobSettings = { -readonly [K in JobSettingName]: ValueOf<(typeof JOB_SETTINGS)[K]> };

export const SETTING_NAMES = Object.keys(JOB_SETTINGS) as JobSettingName[];

/** Each setting with its name. */
export const settingEntries = (): [JobSettingName, JobSettingSpec][] => SETTING_NAMES.map((name) => [name, JOB_SETTINGS[name]]);

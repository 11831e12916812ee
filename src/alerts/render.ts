import { AlertEvent, ChannelKind, LEGACY_KIND, TEST_EVENT, TEST_KIND } from '../domain/notifications.js';

/** One outbox row as the deliverer renders it: the event, what the statement that raised it recorded, and when. */
export interface AlertRecord {
  /** The outbox row's id: `webhook-id`, the same on every attempt. */
  id: string;
  event: AlertEvent | typeof TEST_EVENT;
  data: AlertData;
  /** When the event was recorded. */
  at: Date;
}

/** What the statement that raised an alert recorded of it (alert-rules.ts, late-jobs.ts). */
export interface AlertData {
  job?: { id: string; key: string; version: number; target: string };
  run?: { id: string; status: string; trigger: string; scheduledAt: string; failureCode: string | null; failureMessage: string | null };
  consecutiveFailures?: number;
  reason?: string;
  count?: number;
  runIds?: string[];
  missedReason?: string;
  /** JOB_LATE: the slot with no success, its deadline, the job's setting. */
  slot?: string;
  deadline?: string;
  expectSuccessWithinSeconds?: number;
  /** TEST: the channel tested. */
  channel?: string;
}

/**
 * The JSON body POSTed to a WEBHOOK channel: the body the env webhook always sent (`kind`
 * `run.failed` …, `at`, `instanceId`, the job, the run, …), with `event` (the AlertEvent) added.
 * Never carries payloads or outputs. The same for every attempt of a delivery: it is rendered
 * from the outbox row only (`instanceId` is the instance that delivers it).
 */
export function webhookBody(a: AlertRecord, instanceId: string): string {
  const kind = a.event === TEST_EVENT ? TEST_KIND : LEGACY_KIND[a.event];
  return JSON.stringify({ kind, event: a.event, at: a.at.toISOString(), instanceId, ...a.data });
}

/**
 * A Slack incoming-webhook message: one readable line (Slack's mrkdwn), with a link to the run
 * (or the job) in the dashboard when the public URL is known (CRONQL_PUBLIC_URL).
 */
export function slackBody(a: AlertRecord, publicUrl: string | undefined): string {
  const job = a.data.job ? `\`${esc(a.data.job.key)}\` v${a.data.job.version}` : '';
  const failure = a.data.run?.failureCode ? ` (${esc(a.data.run.failureCode)}${a.data.run.failureMessage ? `: ${esc(clip(a.data.run.failureMessage))}` : ''})` : '';
  const dashboard = publicUrl ? `${publicUrl.replace(/\/+$/, '')}/dashboard/` : undefined;
  const runId = a.data.run?.id ?? a.data.runIds?.[0];
  const link = dashboard && runId ? ` <${dashboard}#/runs/${encodeURIComponent(runId)}|Open the run>`
    : dashboard && a.data.job ? ` <${dashboard}#/jobs/${encodeURIComponent(a.data.job.id)}|Open the job>` : '';
  let text: string;
  switch (a.event) {
    case AlertEvent.RUN_FAILED:
      text = `:red_circle: Job ${job} failed${failure}.`;
      break;
    case AlertEvent.JOB_RECOVERED:
      text = `:large_green_circle: Job ${job} recovered: its run succeeded again.`;
      break;
    case AlertEvent.JOB_AUTO_PAUSED:
      text = `:double_vertical_bar: Job ${job} was paused by cronql after ${a.data.consecutiveFailures} failures in a row${failure}.`;
      break;
    case AlertEvent.RUNS_LOST:
      text = `:warning: ${a.data.count} run${a.data.count === 1 ? ' was' : 's were'} lost: their runner stopped (crashed, stopped or cut off).`;
      break;
    case AlertEvent.SLOTS_MISSED:
      text = `:warning: ${a.data.count} slot${a.data.count === 1 ? ' was' : 's were'} missed (${esc(a.data.missedReason ?? 'UNKNOWN')}).`;
      break;
    case AlertEvent.JOB_LATE:
      text = `:hourglass: Job ${job} is late: no successful run within ${a.data.expectSuccessWithinSeconds} s of its slot ${a.data.slot}.`;
      break;
    default:
      text = `:white_check_mark: cronql test notification for channel \`${esc(a.data.channel ?? '')}\`.`;
  }
  return JSON.stringify({ text: `${text}${link}` });
}

/** The body for a channel of `kind`. */
export function renderBody(kind: ChannelKind, a: AlertRecord, o: { instanceId: string; publicUrl?: string }): string {
  return kind === ChannelKind.SLACK ? slackBody(a, o.publicUrl) : webhookBody(a, o.instanceId);
}

/** Slack's mrkdwn control characters, escaped as Slack asks. */
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const clip = (s: string) => (s.length > 300 ? `${s.slice(0, 299)}…` : s);

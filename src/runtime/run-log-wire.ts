import { isUuid } from '../domain/ids.js';
import { parseEnvelope } from './relay-message.js';

export { ownPrefix } from './relay-message.js';

/**
 * The notification that says which lines of run logs were written (channel `cronql_run_logs`):
 * the writing instance and, per run, the range of sequences. Ids and numbers only — the lines
 * are read back from the table by whoever follows the run, so a message is a hint, never data.
 */
export interface LogRange {
  runId: string;
  from: number;
  to: number;
}

interface WireMessage {
  /** instance that wrote the lines */
  i: string;
  /** [run id, first sequence, last sequence] */
  r: [string, number, number][];
}

/** NOTIFY payloads must stay under 8,000 bytes: a range takes at most about 60, the instance id at most 200. */
export const RANGES_PER_NOTIFY = 100;

/** The payloads announcing `ranges`, each within the NOTIFY limit. */
export function encodeRanges(instanceId: string, ranges: readonly LogRange[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < ranges.length; i += RANGES_PER_NOTIFY) {
    const r = ranges.slice(i, i + RANGES_PER_NOTIFY).map((x): [string, number, number] => [x.runId, x.from, x.to]);
    out.push(JSON.stringify({ i: instanceId, r } satisfies WireMessage));
  }
  return out;
}

/** The message's instance and ranges, if it has the shape `encodeRanges` writes; null otherwise. */
export function decodeRanges(payload: string): { instanceId: string; ranges: LogRange[] } | null {
  const envelope = parseEnvelope(payload, 'r', RANGES_PER_NOTIFY);
  if (!envelope) return null;
  const ranges: LogRange[] = [];
  for (const r of envelope.items) {
    if (!Array.isArray(r) || r.length !== 3) return null;
    const [runId, from, to] = r as unknown[];
    if (!isUuid(runId) || !Number.isInteger(from) || !Number.isInteger(to) || (from as number) < 1 || (to as number) < (from as number)) return null;
    ranges.push({ runId: runId as string, from: from as number, to: to as number });
  }
  return { instanceId: envelope.instanceId, ranges };
}

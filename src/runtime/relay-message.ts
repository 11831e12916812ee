/**
 * The envelope of the NOTIFY messages cronql's relays send between instances: a JSON object whose
 * first key `i` is the sending instance and whose second holds a list of items
 * (`{"i":"…","c":[…]}` for run changes, `{"i":"…","r":[…]}` for run-log ranges). Anyone who can
 * connect to the database can send one, so a message is a hint: its envelope is checked here,
 * its items by the relay that reads them, and the rows they name are read back.
 */

/** How every message an instance sends begins (`JSON.stringify` keeps the key order): its own come back to it. */
export const ownPrefix = (instanceId: string): string => `{"i":${JSON.stringify(instanceId)},`;

/** The sender and the items under `key`, if the payload is such an envelope with at most `max` items; null otherwise. */
export function parseEnvelope(payload: string, key: string, max: number): { instanceId: string; items: unknown[] } | null {
  let m: unknown;
  try {
    m = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof m !== 'object' || m === null) return null;
  const msg = m as Record<string, unknown>;
  const items = msg[key];
  if (typeof msg.i !== 'string' || !Array.isArray(items) || items.length > max) return null;
  return { instanceId: msg.i, items };
}

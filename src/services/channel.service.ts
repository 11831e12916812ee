import { auditActor } from './audit-actor.js';
import { CronqlError } from '../errors.js';
import type { Logger } from '../logger.js';
import { ChannelStore, type ChannelRow, type SealedChannel } from '../db/notification-channels.js';
import type { Pool } from '../db/pool.js';
import { AlertEvent, CHANNEL_NAME, ChannelKind, ENV_CHANNEL } from '../domain/notifications.js';
import type { Sealed } from '../secrets/cipher.js';
import { WHSEC } from '../alerts/signing.js';
import { checkText } from './stored-input.js';

/** A channel as given to setNotificationChannel. */
export interface ChannelInput {
  name: string;
  kind: ChannelKind;
  url: string;
  secret?: string | null;
  events?: AlertEvent[] | null;
  default?: boolean | null;
}

/** A channel with its credentials opened, for the deliverer. */
export interface OpenChannel extends ChannelRow {
  url: string;
  secret: string | null;
}

export interface ChannelDeps {
  pool: Pool;
  now(): Date;
  /** CRONQL_ALERT_WEBHOOK_URL / _SECRET of this process: the channel `default`'s credentials, never stored. */
  env?: { url?: string; secret?: string };
  log?: Logger;
  /** Seals and opens credentials with the secrets' key (services/secret.service.ts). */
  credentials: {
    sealCredential(label: string, value: string): Promise<Sealed>;
    openCredential(label: string, sealed: Sealed): Promise<string>;
  };
}

export const MAX_URL_LENGTH = 2_048;
/** A plain (not `whsec_`) signing secret is at least this long: shorter ones are guessable. */
export const MIN_PLAIN_SECRET = 16;
export const MAX_SECRET_LENGTH = 1_024;
/** A `whsec_` secret's key: 24 to 64 bytes (the spec's recommendation is 24 or more). */
const WHSEC_BYTES = { min: 24, max: 64 };

const bad = (field: string, message: string) => new CronqlError('BAD_USER_INPUT', message, { field });
const urlLabel = (name: string) => `channel:${name}:url`;
const secretLabel = (name: string) => `channel:${name}:secret`;

/**
 * Notification channels: set, delete, list (never a URL, only its host; never a secret), test,
 * and the check that the names a job's `notify` lists exist. A channel's URL is a credential
 * (a Slack incoming webhook's is all it takes to post): it is sealed at rest with the secrets'
 * key, like its signing secret. The channel CRONQL_ALERT_WEBHOOK_URL defines (`default`) is
 * written at each start from the environment, and only there; its URL and secret are read from
 * the environment of the instance that sends, never stored.
 */
export class ChannelService {
  readonly store: ChannelStore;

  constructor(private readonly d: ChannelDeps) {
    this.store = new ChannelStore(d.pool);
  }

  list(): Promise<ChannelRow[]> {
    return this.store.list();
  }

  async set(input: ChannelInput, actor: string | null = null): Promise<ChannelRow> {
    const c = validateChannel(input);
    const existing = await this.store.get(c.name);
    if (existing?.fromEnv) throw envDefined(c.name);
    return this.write(c, actor);
  }

  /**
   * Deletes a channel and its pending deliveries. The env channel may be deleted too (after the
   * variable was removed from every instance): an instance that still has it writes it again at
   * its next start. @throws CronqlError CHANNEL_IN_USE while live jobs name it
   */
  async delete(name: unknown, actor: string | null = null): Promise<boolean> {
    const n = validateName(name);
    const existing = await this.store.get(n);
    if (!existing) return false;
    const used = await this.store.usedBy(n);
    if (used.length) {
      throw new CronqlError('CHANNEL_IN_USE', `channel ${n} is named in notify by ${used.join(', ')}; change those jobs first`, { name: n, jobs: used });
    }
    return this.store.delete(n, { actor: auditActor(actor), action: 'deleteNotificationChannel' }, this.d.now());
  }

  /** @throws CronqlError UNKNOWN_CHANNEL naming the names that are not channels (job create and version). */
  async assertExist(names: Iterable<string>): Promise<void> {
    const wanted = [...new Set(names)];
    if (wanted.length === 0) return;
    const found = await this.store.existing(wanted);
    const missing = wanted.filter((n) => !found.has(n));
    if (missing.length) {
      throw new CronqlError('UNKNOWN_CHANNEL', `notify names ${missing.join(', ')}, which ${missing.length === 1 ? 'is not a channel' : 'are not channels'}; create it with setNotificationChannel`, {
        field: 'notify',
        channels: missing,
      });
    }
  }

  /** The channel `name` with its URL and secret opened; null when there is none. */
  async open(name: string): Promise<OpenChannel | null> {
    const c = await this.store.get(name);
    return c ? this.openSealed(c) : null;
  }

  /** Whether this process can send to `c`: the env channel needs this process's CRONQL_ALERT_WEBHOOK_URL. */
  canSend(c: { fromEnv: boolean }): boolean {
    return !c.fromEnv || !!this.d.env?.url;
  }

  /** @throws when the credentials do not open, or the env channel's are not in this process's environment */
  async openSealed(c: SealedChannel): Promise<OpenChannel> {
    const { url, secret, ...row } = c;
    if (c.fromEnv || !url) {
      if (!this.d.env?.url) throw new Error(`channel ${c.name} is CRONQL_ALERT_WEBHOOK_URL, which this instance does not have`);
      return { ...row, url: this.d.env.url, secret: this.d.env.secret ?? null };
    }
    return {
      ...row,
      url: await this.d.credentials.openCredential(urlLabel(c.name), url),
      secret: secret ? await this.d.credentials.openCredential(secretLabel(c.name), secret) : null,
    };
  }

  /**
   * At start, with CRONQL_ALERT_WEBHOOK_URL set: the default WEBHOOK channel `default`, every
   * event. Its URL and secret stay in the environment (the row holds the host only): a deployment
   * that had the variable and no secrets key keeps starting without one, on every host. Unset,
   * nothing is written or removed (another instance may have it).
   */
  async syncEnvChannel(): Promise<void> {
    const url = this.d.env?.url;
    if (!url) return;
    const host = new URL(url).host;
    const current = await this.store.get(ENV_CHANNEL);
    // Unchanged: nothing to write (several instances start at once with the same environment).
    if (current?.fromEnv && current.urlHost === host && current.isDefault && current.events === null && current.kind === ChannelKind.WEBHOOK) return;
    if (current && !current.fromEnv) this.d.log?.warn({ channel: ENV_CHANNEL }, 'notifications: the channel set through the API under this name is replaced by CRONQL_ALERT_WEBHOOK_URL');
    await this.store.upsert(
      { name: ENV_CHANNEL, kind: ChannelKind.WEBHOOK, url: null, urlHost: host, secret: null, events: null, isDefault: true, fromEnv: true },
      'env',
      this.d.now(),
    );
  }

  private async write(c: ValidChannel, actor: string | null): Promise<ChannelRow> {
    return this.store.upsert(
      {
        name: c.name,
        kind: c.kind,
        url: await this.d.credentials.sealCredential(urlLabel(c.name), c.url.href),
        urlHost: c.url.host,
        secret: c.secret === null ? null : await this.d.credentials.sealCredential(secretLabel(c.name), c.secret),
        events: c.events,
        isDefault: c.isDefault,
        fromEnv: false,
      },
      actor,
      this.d.now(),
      // What changed, never the URL (a credential: Slack's is) nor the signing secret.
      { actor: auditActor(actor), action: 'setNotificationChannel', details: { kind: c.kind, urlHost: c.url.host, events: c.events, default: c.isDefault, signed: c.secret !== null } },
    );
  }
}

interface ValidChannel {
  name: string;
  kind: ChannelKind;
  url: URL;
  secret: string | null;
  events: AlertEvent[] | null;
  isDefault: boolean;
}

const envDefined = (name: string) =>
  new CronqlError('INVALID_STATE', `channel ${name} is defined by CRONQL_ALERT_WEBHOOK_URL; change the environment instead`, { name });

export function validateName(name: unknown): string {
  if (typeof name !== 'string' || !CHANNEL_NAME.test(name)) {
    throw bad('name', 'a channel name is 1–64 letters, digits and . _ -, starting with a letter or digit');
  }
  return name;
}

/** Every rule of a channel's input, in one place: bad input fails with BAD_USER_INPUT naming the field, and changes nothing. */
export function validateChannel(input: ChannelInput): ValidChannel {
  if (typeof input !== 'object' || input === null) throw bad('input', 'input must be an object');
  const name = validateName(input.name);
  if (!Object.values(ChannelKind).includes(input.kind)) throw bad('kind', `kind must be ${Object.values(ChannelKind).join(' or ')}`);
  if (typeof input.url !== 'string' || input.url.length === 0) throw bad('url', 'url must be an absolute http: or https: URL');
  if (input.url.length > MAX_URL_LENGTH) throw bad('url', `url must be at most ${MAX_URL_LENGTH} characters`);
  checkText('url', input.url);
  const url = URL.canParse(input.url) ? new URL(input.url) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) throw bad('url', 'url must be an absolute http: or https: URL');
  if (url.username || url.password) throw bad('url', 'url must not carry a user name or password; use secret to sign deliveries');
  let secret: string | null = null;
  if (input.secret != null) {
    if (typeof input.secret !== 'string') throw bad('secret', 'secret must be a string');
    if (input.kind === ChannelKind.SLACK) throw bad('secret', 'a SLACK channel is not signed (its URL is its credential); leave secret out');
    checkText('secret', input.secret);
    if (input.secret.length > MAX_SECRET_LENGTH) throw bad('secret', `secret must be at most ${MAX_SECRET_LENGTH} characters`);
    if (input.secret.startsWith(WHSEC)) {
      const body = input.secret.slice(WHSEC.length);
      const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(body) ? Buffer.from(body, 'base64').length : 0;
      if (bytes < WHSEC_BYTES.min || bytes > WHSEC_BYTES.max) {
        throw bad('secret', `a ${WHSEC} secret is ${WHSEC} and the base64 of ${WHSEC_BYTES.min}–${WHSEC_BYTES.max} random bytes`);
      }
    } else if (input.secret.length < MIN_PLAIN_SECRET) {
      throw bad('secret', `secret must be ${WHSEC}<base64> or at least ${MIN_PLAIN_SECRET} characters`);
    }
    secret = input.secret;
  }
  let events: AlertEvent[] | null = null;
  if (input.events != null) {
    if (!Array.isArray(input.events) || input.events.length === 0) throw bad('events', 'events must list at least one event; omit it for every event');
    const all = Object.values(AlertEvent) as string[];
    const unknown = input.events.find((e) => !all.includes(e));
    if (unknown !== undefined) throw bad('events', `events: ${JSON.stringify(unknown)} is not one of ${all.join(', ')}`);
    events = [...new Set(input.events)];
  }
  if (input.default != null && typeof input.default !== 'boolean') throw bad('default', 'default must be true or false');
  return { name, kind: input.kind, url, secret, events, isDefault: input.default ?? false };
}

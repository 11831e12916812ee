import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { ApiTokenStore, TokenNameTaken, type ApiTokenRow } from '../db/api-tokens.js';
import type { Pool } from '../db/pool.js';
import { isUuid } from '../domain/ids.js';
import { parseLabelSelector } from '../domain/label-selector.js';
import { TokenRole } from '../domain/token-role.js';
import { CronqlError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Clock } from '../runtime/clock.js';
import { checkText } from './stored-input.js';
import { TokenUses } from './token-uses.js';

/** Prefix of a named token's secret: recognisable in a leak (and for secret scanners), and a cheap first check. */
export const TOKEN_SECRET_PREFIX = 'cq_';
/** `cq_` + 32 random bytes in base64url (43 characters). */
const SECRET_SHAPE = /^cq_[A-Za-z0-9_-]{43}$/;
/** A token's name: what `createdBy`, `updatedBy` and the audit log record. */
export const TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
/** The environment's tokens' names: a named token may not take them (a record would not say which it was). */
export const RESERVED_TOKEN_NAMES: readonly string[] = ['admin', 'viewer'];

/** How long a token's verdict (known, revoked, expired, unknown) is kept before the database is asked again. */
export const TOKEN_CACHE_MS = 10_000;
/** Known tokens kept in the cache at most (they are few: this bounds a pathological table). */
const MAX_CACHED_TOKENS = 10_000;
/** Unknown digests remembered at most: a flood of wrong tokens cannot grow memory past this. */
export const MAX_UNKNOWN_DIGESTS = 1_000;
/** Database look-ups of digests not in the cache, per second at most (a token bucket of this size). */
export const LOOKUPS_PER_SECOND = 50;

/** Who a named token is, as the API layer makes its principal of it. */
export interface TokenIdentity {
  role: TokenRole;
  name: string;
  tokenId: string;
  scope: string | null;
  expiresAt: Date | null;
}

export type TokenVerdict =
  | { ok: true; identity: TokenIdentity }
  | { ok: false; code: 'UNKNOWN' | 'TOKEN_REVOKED' | 'TOKEN_EXPIRED' };

export interface CreateTokenInput {
  name: string;
  role: TokenRole;
  labelSelector?: string | null;
  expiresAt?: Date | null;
}

export interface TokenServiceDeps {
  pool: Pool;
  clock: Clock;
  log: Logger;
  /** A monotonic millisecond clock for the cache and the look-up budget (tests may drive it). */
  monotonicMs?: () => number;
}

const sha256 = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();
const bad = (field: string, message: string) => new CronqlError('BAD_USER_INPUT', message, { field });

interface Cached {
  token: ApiTokenRow;
  until: number;
}

/**
 * Named API tokens: create (the secret shown once, its SHA-256 stored), list, revoke, and the
 * check of a bearer secret. The check is answered from memory for TOKEN_CACHE_MS after the first
 * look-up, so a request does not cost a query; revocation does not wait for that: the revoking
 * statement NOTIFYs every instance, which forgets the token at once and ends what it opened
 * (`watch`). Wrong secrets cost as little: junk is refused by its shape, the digests of unknown
 * well-shaped ones are remembered (at most MAX_UNKNOWN_DIGESTS), and the look-ups of new digests
 * are bounded per second (LOOKUPS_PER_SECOND); past the budget a new secret is answered unknown
 * without a query (a token already known here is re-read whatever the budget).
 */
export class TokenService {
  private readonly store: ApiTokenStore;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly mono: () => number;
  private readonly known = new Map<string, Cached>();
  private readonly unknown = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<ApiTokenRow | null>>();
  private readonly watchers = new Map<string, Set<() => void>>();
  private budget = LOOKUPS_PER_SECOND;
  private budgetAt: number;
  readonly uses: TokenUses;
  /** When this instance read its configuration: what `whoami` answers as the environment tokens' `createdAt`. */
  readonly environmentSince: Date;

  constructor(deps: TokenServiceDeps) {
    this.store = new ApiTokenStore(deps.pool);
    this.clock = deps.clock;
    this.log = deps.log;
    this.mono = deps.monotonicMs ?? (() => performance.now());
    this.budgetAt = this.mono();
    this.environmentSince = this.clock.now();
    this.uses = new TokenUses({ store: this.store, now: () => this.clock.now(), log: deps.log });
  }

  /** Creates a token; its secret is in the answer and nowhere else, ever. */
  async create(input: CreateTokenInput, actor: string): Promise<{ token: ApiTokenRow; secret: string }> {
    const name = input.name;
    checkText('name', name);
    if (!TOKEN_NAME.test(name)) throw bad('name', 'A token name is 1–64 letters, digits and . _ @ -, starting with a letter or digit');
    if (RESERVED_TOKEN_NAMES.includes(name.toLowerCase())) {
      throw bad('name', `"${name}" is the name of an environment token; choose another`);
    }
    if (!Object.values(TokenRole).includes(input.role)) throw bad('role', `role must be one of ${Object.values(TokenRole).join(', ')}`);
    const selector = input.labelSelector ?? null;
    if (selector !== null) {
      if (input.role === TokenRole.ADMIN) {
        throw bad('labelSelector', 'An ADMIN token cannot have a labelSelector: it could reference any team\'s secrets in a payload. Use an OPERATOR or VIEWER token for a scope.');
      }
      checkText('labelSelector', selector);
      // The grammar's rules and caps (INVALID_SELECTOR); an empty selector would match every job: not a scope.
      if (parseLabelSelector(selector).terms.length === 0) throw bad('labelSelector', 'labelSelector is empty; omit it (or send null) for an unscoped token');
    }
    const expiresAt = input.expiresAt ?? null;
    if (expiresAt !== null && !(expiresAt.getTime() > this.clock.now().getTime())) {
      throw bad('expiresAt', 'expiresAt must be in the future');
    }
    const secret = TOKEN_SECRET_PREFIX + randomBytes(32).toString('base64url');
    try {
      const token = await this.store.insert(
        { id: randomUUID(), name, role: input.role, labelSelector: selector, secretSha256: sha256(secret), createdBy: actor, expiresAt },
        this.clock.now(),
      );
      return { token, secret };
    } catch (err) {
      if (err instanceof TokenNameTaken) throw bad('name', `A token named ${name} exists; revoke it first, or choose another name`);
      throw err;
    }
  }

  /** Every token, revoked ones included (newest first); never a secret. */
  list(): Promise<ApiTokenRow[]> {
    return this.store.list();
  }

  /** The token of this id, or null. */
  async get(id: string): Promise<ApiTokenRow | null> {
    return isUuid(id) ? this.store.get(id) : null;
  }

  /**
   * Revokes a token: refused from its next request on every instance, its open sockets closed.
   * Revoking a revoked token changes nothing and answers it. NOT_FOUND for an unknown id.
   */
  async revoke(id: string, actor: string): Promise<ApiTokenRow> {
    const token = isUuid(id) ? await this.store.revoke(id, actor, this.clock.now()) : null;
    if (!token) throw new CronqlError('NOT_FOUND', `no API token with id ${id}`, { id });
    // Here at once; the other instances on the NOTIFY the same statement sent.
    this.forget(id);
    return token;
  }

  /** The verdict on a bearer secret (the environment's tokens are checked before, by the API layer). */
  async check(secret: string): Promise<TokenVerdict> {
    if (!SECRET_SHAPE.test(secret)) return { ok: false, code: 'UNKNOWN' };
    const key = sha256(secret).toString('hex');
    const now = this.mono();
    const cached = this.known.get(key);
    let token: ApiTokenRow | null;
    if (cached && cached.until > now) {
      token = cached.token;
    } else {
      const miss = this.unknown.get(key);
      if (miss !== undefined && miss > now) return { ok: false, code: 'UNKNOWN' };
      token = await this.lookUp(key, now);
    }
    if (!token) return { ok: false, code: 'UNKNOWN' };
    if (token.revokedAt) return { ok: false, code: 'TOKEN_REVOKED' };
    if (token.expiresAt && token.expiresAt.getTime() <= this.clock.now().getTime()) return { ok: false, code: 'TOKEN_EXPIRED' };
    this.uses.used(token.id);
    return {
      ok: true,
      identity: { role: token.role as TokenRole, name: token.name, tokenId: token.id, scope: token.labelSelector, expiresAt: token.expiresAt },
    };
  }

  /** One look-up per digest at a time, within the budget; the answer is cached either way. */
  private lookUp(key: string, now: number): Promise<ApiTokenRow | null> {
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    // Re-reading a token known here (its verdict ran out) is not a guess: only new digests spend
    // the budget, so a flood of wrong tokens cannot lock out the tokens in use.
    if (!this.known.has(key) && !this.spend(now)) return Promise.resolve(null);
    const lookup = this.store
      .byDigest(Buffer.from(key, 'hex'))
      .then((row) => {
        const until = this.mono() + TOKEN_CACHE_MS;
        if (row) {
          const { secretSha256: _digest, ...token } = row;
          this.remember(this.known, key, { token, until }, MAX_CACHED_TOKENS);
          this.unknown.delete(key);
          return token;
        }
        this.remember(this.unknown, key, until, MAX_UNKNOWN_DIGESTS);
        return null;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, lookup);
    return lookup;
  }

  /** A Map used as a bounded cache: the oldest entry goes when it is full (insertion order). */
  private remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
    map.delete(key);
    if (map.size >= max) {
      const now = this.mono();
      // Expired entries first; if none, the oldest.
      for (const [k, v] of map) {
        const until = typeof v === 'number' ? v : (v as Cached).until;
        if (until <= now) map.delete(k);
      }
      if (map.size >= max) map.delete(map.keys().next().value!);
    }
    map.set(key, value);
  }

  /** A token bucket of LOOKUPS_PER_SECOND, refilled continuously. */
  private spend(now: number): boolean {
    this.budget = Math.min(LOOKUPS_PER_SECOND, this.budget + ((now - this.budgetAt) / 1_000) * LOOKUPS_PER_SECOND);
    this.budgetAt = now;
    if (this.budget < 1) return false;
    this.budget -= 1;
    return true;
  }

  /** Sizes of the caches, for tests and the curious. */
  get cacheSizes(): { known: number; unknown: number } {
    return { known: this.known.size, unknown: this.unknown.size };
  }

  /**
   * Calls `onEnd` once when the token is revoked (here or on any instance) or found revoked or
   * expired after a lost notification connection; returns the function that stops watching.
   */
  watch(tokenId: string, onEnd: () => void): () => void {
    let set = this.watchers.get(tokenId);
    if (!set) this.watchers.set(tokenId, (set = new Set()));
    set.add(onEnd);
    return () => {
      set.delete(onEnd);
      if (set.size === 0 && this.watchers.get(tokenId) === set) this.watchers.delete(tokenId);
    };
  }

  /** A token was revoked (this instance, or another's NOTIFY): forget its verdict, end what it opened. */
  forget(tokenId: string): void {
    for (const [key, entry] of this.known) if (entry.token.id === tokenId) this.known.delete(key);
    const ends = this.watchers.get(tokenId);
    this.watchers.delete(tokenId);
    for (const end of ends ?? []) {
      try {
        end();
      } catch (err) {
        this.log.error({ err }, 'closing what a revoked token opened failed');
      }
    }
  }

  /**
   * After a lost notification connection, revocations may have been missed: every verdict is
   * dropped (the next request asks the database) and the watched tokens are read again. Never
   * throws.
   */
  async resync(): Promise<void> {
    this.known.clear();
    try {
      for (const id of await this.store.endedAmong([...this.watchers.keys()], this.clock.now())) this.forget(id);
    } catch (err) {
      this.log.warn({ err }, 'could not re-read the revoked tokens after a lost notification connection');
    }
  }

  /** Writes the last uses not yet written. */
  stop(): Promise<void> {
    return this.uses.stop();
  }
}

import { randomFillSync } from 'node:crypto';

/**
 * Ids for the runs a fire statement claims, made here rather than by the database: UUIDv7 (RFC
 * 9562, method 1: a 26-bit counter after the millisecond, seeded at random each millisecond, then
 * 48 random bits), increasing across every call of this process.
 *
 * Why not `cron_run_id()` (the database's `uuidv7()`): the co-due slots of a busy second are
 * recorded by two statements at once on two backends (fire.ts, `FIRE_PARTS`), and ids the two
 * backends make in the same milliseconds interleave — both statements then insert at the same
 * right-edge page of the primary key and of the (scheduled_at, id) index, and take turns on its
 * lock (BENCHMARKS.md, "2026-11-27 (s10, lead)"). Ids made here in part order keep each part's
 * entries on pages of their own. The same ids on every PostgreSQL version (time-ordered before
 * 18 too, where `cron_run_id()` is random).
 *
 * Made in a batch (one random fill, hex digits written as bytes, one string): ~0.15–0.2 µs an
 * id, where the `uuid` package's v7 takes 0.6–1.2 µs — on the fire path, before the statement leaves.
 */
export class RunIds {
  private lastMs = -1;
  private counter = 0;
  private readonly limit: number;

  /**
   * @param nowMs the clock the ids' milliseconds come from
   * @param counterBits how many of the 26 counter bits a millisecond may use before the next
   * millisecond is taken (fewer only to exercise that in tests)
   */
  constructor(
    private readonly nowMs: () => number = Date.now,
    private readonly counterBits = 26,
  ) {
    this.limit = 2 ** counterBits;
  }

  /**
   * `n` new ids as a PostgreSQL array literal (`{id,id,…}`, the parameter of a `uuid[]`), each
   * greater than every id made before by this generator. Written as bytes and decoded once: no
   * string per id.
   */
  arrayLiteral(n: number): string {
    let ms = this.nowMs();
    if (ms > this.lastMs) {
      this.lastMs = ms;
      this.counter = this.seed();
    } else {
      ms = this.lastMs; // the clock went back, or the same millisecond: continue after the last id
    }
    if (n === 0) return '{}';
    const out = Buffer.allocUnsafe(n * 37 + 1);
    out[0] = BRACE_OPEN;
    const random = randomFillSync(Buffer.allocUnsafe(6 * n));
    let at = 1;
    for (let i = 0; i < n; i++) {
      if (this.counter >= this.limit) {
        // The counter is spent for this millisecond: the next one (RFC 9562, 6.2, method 1).
        ms = ++this.lastMs;
        this.counter = this.seed();
      }
      at = write(out, at, ms, this.counter++, random, i * 6);
      out[at++] = i === n - 1 ? BRACE_CLOSE : COMMA;
    }
    return out.toString('latin1');
  }

  /** A millisecond's first counter value: random, in the lower half of the range (2^25 ids before it is spent). */
  private seed(): number {
    return randomFillSync(Buffer.allocUnsafe(4)).readUInt32BE(0) >>> (33 - this.counterBits);
  }
}

const BRACE_OPEN = 0x7b;
const BRACE_CLOSE = 0x7d;
const COMMA = 0x2c;
const DASH = 0x2d;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/** Writes byte `b` as two hex digits at `at`; returns the next position. */
function hex(out: Buffer, at: number, b: number): number {
  out[at] = HEX_DIGITS[b >>> 4];
  out[at + 1] = HEX_DIGITS[b & 0x0f];
  return at + 2;
}

/**
 * xxxxxxxx-xxxx-7ccc-Vccc-rrrrrrrrrrrr at `at`: 48-bit ms, version 7, 12 + 14 counter bits,
 * variant 10, 48 random bits (`random[r…r+5]`); returns the position after it.
 */
function write(out: Buffer, at: number, ms: number, counter: number, random: Buffer, r: number): number {
  const high = Math.floor(ms / 2 ** 16);
  const low = ms % 2 ** 16;
  at = hex(out, at, (high >>> 24) & 0xff);
  at = hex(out, at, (high >>> 16) & 0xff);
  at = hex(out, at, (high >>> 8) & 0xff);
  at = hex(out, at, high & 0xff);
  out[at++] = DASH;
  at = hex(out, at, low >>> 8);
  at = hex(out, at, low & 0xff);
  out[at++] = DASH;
  at = hex(out, at, 0x70 | (counter >>> 22));
  at = hex(out, at, (counter >>> 14) & 0xff);
  out[at++] = DASH;
  at = hex(out, at, 0x80 | ((counter >>> 8) & 0x3f));
  at = hex(out, at, counter & 0xff);
  out[at++] = DASH;
  for (let k = 0; k < 6; k++) at = hex(out, at, random[r + k]);
  return at;
}

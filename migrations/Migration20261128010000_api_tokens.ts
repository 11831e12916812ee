import { Migration } from '@mikro-orm/migrations';

/**
 * Named API tokens (docs/security.md, "Named tokens"): one row per token, its secret kept as its
 * SHA-256 digest only. A name is unique among the tokens not revoked, so a revoked token's name
 * can be given to its replacement (rotation) while the history keeps both. The digest is unique
 * whatever the state: a revoked token's secret is still recognised, and answered TOKEN_REVOKED.
 */
export class Migration20261128010000_api_tokens extends Migration {
  override async up(): Promise<void> {
    this.addSql(`CREATE TABLE cron_api_tokens (
      id             uuid PRIMARY KEY,
      name           text NOT NULL CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$'),
      role           text NOT NULL CHECK (role IN ('ADMIN', 'OPERATOR', 'VIEWER')),
      label_selector text NULL CHECK (label_selector IS NULL OR role <> 'ADMIN'),
      secret_sha256  bytea NOT NULL UNIQUE CHECK (octet_length(secret_sha256) = 32),
      created_at     timestamptz NOT NULL,
      created_by     text NOT NULL,
      expires_at     timestamptz NULL,
      last_used_at   timestamptz NULL,
      revoked_at     timestamptz NULL,
      revoked_by     text NULL
    )`);
    this.addSql(`CREATE UNIQUE INDEX cron_api_tokens_live_name ON cron_api_tokens (name) WHERE revoked_at IS NULL`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE IF EXISTS cron_api_tokens');
  }
}

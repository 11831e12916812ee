import { Migration } from '@mikro-orm/migrations';

/**
 * Secrets, encrypted at rest with AES-256-GCM (one nonce per write; the name is the
 * authenticated data). `cron_secrets_key_check` holds one constant sealed with the key the
 * secrets were written with, so a start with another key fails at once, in one line, rather than
 * at the first run that needs a secret.
 */
export class Migration20261124170000_secrets extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE cron_secrets (
        name       text PRIMARY KEY CHECK (name ~ '^[A-Z][A-Z0-9_]{0,63}$'),
        iv         bytea NOT NULL,
        ciphertext bytea NOT NULL,
        tag        bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        updated_by text NULL
      )`);
    this.addSql(`
      CREATE TABLE cron_secrets_key_check (
        id         smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
        iv         bytea NOT NULL,
        ciphertext bytea NOT NULL,
        tag        bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE IF EXISTS cron_secrets_key_check');
    this.addSql('DROP TABLE IF EXISTS cron_secrets');
  }
}

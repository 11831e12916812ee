/**
 * What a token may do (docs/security.md, "Roles"): ADMIN everything; OPERATOR the day-to-day
 * actions on existing jobs and runs, and reads; VIEWER reads. Stored as is in `cron_api_tokens.role`.
 */
export enum TokenRole {
  ADMIN = 'ADMIN',
  OPERATOR = 'OPERATOR',
  VIEWER = 'VIEWER',
}

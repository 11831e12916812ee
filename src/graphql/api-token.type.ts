import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { TokenRole } from '../domain/token-role.js';
import { DateTimeScalar } from './scalars.js';

registerEnumType(TokenRole, {
  name: 'TokenRole',
  description: 'What a token may do.',
  valuesConfig: {
    ADMIN: { description: 'Everything. Never scoped.' },
    OPERATOR: {
      description: 'Reads, and pauseJob, resumeJob, runJobNow, cancelRun, skipNextRuns, backfillJob, cancelBackfill, pauseJobs, resumeJobs; not creating, versioning or retiring jobs, nor secrets, calendars, channels, pools or tokens.',
    },
    VIEWER: { description: 'Reads (queries and subscriptions); credential-looking payload values redacted.' },
  },
});

export { TokenRole };

/** A token as the API shows it: never its secret (createApiToken's answer is the only one that has it). */
@ObjectType('ApiToken', {
  description:
    'A bearer token. Named tokens live in the database; the environment\'s tokens (CRONQL_ADMIN_TOKEN, CRONQL_VIEWER_TOKEN) answer whoami with id "env:admin" / "env:viewer" and createdAt the instant this instance started.',
})
export class ApiToken {
  @Field(() => ID)
  id!: string;

  @Field(() => String, { description: 'What createdBy, updatedBy and the audit log record for its calls.' })
  name!: string;

  @Field(() => TokenRole)
  role!: TokenRole;

  @Field(() => String, { nullable: true, description: 'The jobs (and their runs) it sees and acts on; null: all of them.' })
  labelSelector!: string | null;

  @Field(() => DateTimeScalar)
  createdAt!: Date;

  @Field(() => DateTimeScalar, { nullable: true, description: 'From this instant it is refused (TOKEN_EXPIRED); null: never.' })
  expiresAt!: Date | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Its last use, to the minute (written at most once a minute).' })
  lastUsedAt!: Date | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'When it was revoked: refused from then on (TOKEN_REVOKED), its open WebSockets closed.' })
  revokedAt!: Date | null;
}

@ObjectType('CreatedToken', { description: 'A new token and its secret: the secret is shown here once, and stored only as a SHA-256 digest.' })
export class CreatedToken {
  @Field(() => ApiToken)
  token!: ApiToken;

  @Field(() => String, { description: 'The bearer secret (`cq_` + 43 characters). Keep it now: it cannot be read again.' })
  secret!: string;
}

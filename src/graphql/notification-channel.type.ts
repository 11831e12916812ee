import { Field, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { AlertEvent, ChannelKind } from '../domain/notifications.js';
import { DateTimeScalar } from './scalars.js';

registerEnumType(ChannelKind, {
  name: 'ChannelKind',
  description: 'How a channel is sent to.',
  valuesConfig: {
    WEBHOOK: { description: 'A JSON POST with the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature).' },
    SLACK: { description: 'A Slack incoming webhook: a readable message with a link to the run in the dashboard.' },
  },
});
registerEnumType(AlertEvent, {
  name: 'AlertEvent',
  description: 'What cronql alerts on: once per transition, not once per failure.',
  valuesConfig: {
    RUN_FAILED: { description: 'A job started failing: its run (last attempt) failed after the job had been succeeding.' },
    JOB_RECOVERED: { description: 'A failing job succeeded again.' },
    JOB_AUTO_PAUSED: { description: 'cronql paused the job after pauseAfterFailures failures in a row.' },
    RUNS_LOST: { description: 'RUNNING runs were settled because their runner was gone (one alert per sweep).' },
    SLOTS_MISSED: { description: 'Slots were recorded MISSED (one alert per batch and reason).' },
    JOB_LATE: { description: 'No SUCCEEDED run expectSuccessWithinSeconds after a slot (once, until the job succeeds again).' },
  },
});

@ObjectType('NotificationChannel', { description: 'Where alerts go. Its URL is a credential: only its host is ever shown.' })
export class NotificationChannel {
  @Field(() => String)
  name!: string;

  @Field(() => ChannelKind)
  kind!: ChannelKind;

  @Field(() => String, { description: 'The host of its URL (the URL itself is never returned).' })
  urlHost!: string;

  @Field(() => [AlertEvent], { description: 'The events it takes.' })
  events!: AlertEvent[];

  @Field(() => Boolean, { description: 'Jobs that name no channel in notify alert the default channels.' })
  default!: boolean;

  @Field(() => DateTimeScalar, { nullable: true, description: 'When an alert was last delivered to it.' })
  lastDeliveryAt!: Date | null;

  @Field(() => String, { nullable: true, description: 'Why the last attempt failed (null after a delivery); names the host, never the URL.' })
  lastError!: string | null;
}

@InputType('NotificationChannelInput', { description: 'A channel to create or replace (by name).' })
export class NotificationChannelInput {
  @Field(() => String, { description: '1–64 letters, digits and . _ -, starting with a letter or digit.' })
  name!: string;

  @Field(() => ChannelKind)
  kind!: ChannelKind;

  @Field(() => String, { description: 'http: or https:; stored encrypted, never shown again (only its host).' })
  url!: string;

  @Field(() => String, { nullable: true, description: 'WEBHOOK only: the signing secret, whsec_<base64> (Standard Webhooks) or at least 16 characters (used as its UTF-8 bytes).' })
  secret?: string | null;

  @Field(() => [AlertEvent], { nullable: true, description: 'The events it takes; omitted or null: every event.' })
  events?: AlertEvent[] | null;

  @Field(() => Boolean, { nullable: true, defaultValue: false, description: 'A default channel: alerts of jobs whose notify is empty go to the default channels.' })
  default?: boolean | null;
}

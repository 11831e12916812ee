import { Arg, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { CronqlError } from '../errors.js';
import type { ChannelRow } from '../db/notification-channels.js';
import { AlertEvent } from '../domain/notifications.js';
import { validateName } from '../services/channel.service.js';
import type { GraphQLContext } from './context.type.js';
import { rolesFor } from './auth.js';
import { NotificationChannel, NotificationChannelInput } from './notification-channel.type.js';

const toChannel = (c: ChannelRow): NotificationChannel => ({
  name: c.name,
  kind: c.kind,
  urlHost: c.urlHost,
  events: c.events ?? Object.values(AlertEvent),
  default: c.isDefault,
  lastDeliveryAt: c.lastDeliveryAt,
  lastError: c.lastError,
});

/** Notification channels are ADMIN-only, both ways: their URLs and secrets are credentials, never returned. */
@Resolver(() => NotificationChannel)
export class NotificationChannelResolver {
  @Authorized(...rolesFor('Query.notificationChannels'))
  @Query(() => [NotificationChannel], { description: 'Every notification channel, by name (ADMIN).' })
  async notificationChannels(@Ctx() ctx: GraphQLContext): Promise<NotificationChannel[]> {
    return (await ctx.cronql.channels.list()).map(toChannel);
  }

  @Authorized(...rolesFor('Mutation.setNotificationChannel'))
  @Mutation(() => NotificationChannel, { description: 'Creates or replaces a notification channel (ADMIN).' })
  async setNotificationChannel(@Arg('input', () => NotificationChannelInput) input: NotificationChannelInput, @Ctx() ctx: GraphQLContext): Promise<NotificationChannel> {
    return toChannel(await ctx.cronql.channels.set({ ...input }, ctx.principal.name));
  }

  @Authorized(...rolesFor('Mutation.deleteNotificationChannel'))
  @Mutation(() => Boolean, { description: 'Deletes a channel and its pending deliveries (ADMIN); refused while live jobs name it (CHANNEL_IN_USE). False when there was none.' })
  deleteNotificationChannel(@Arg('name', () => String) name: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    return ctx.cronql.channels.delete(name, ctx.principal.name);
  }

  @Authorized(...rolesFor('Mutation.testNotificationChannel'))
  @Mutation(() => Boolean, { description: 'Sends a test alert to the channel now (ADMIN): true when it answered 2xx; false, with lastError saying why.' })
  async testNotificationChannel(@Arg('name', () => String) name: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    const n = validateName(name);
    const ok = await ctx.cronql.notifications.test(n, ctx.principal.name);
    if (ok === null) throw new CronqlError('NOT_FOUND', `no notification channel named ${n}`, { name: n });
    return ok;
  }
}

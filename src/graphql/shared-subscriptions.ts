import { print, subscribe, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { GraphQLContext } from './context.type.js';

type Result = ExecutionResult;

/** Work a channel does in one turn of the event loop before it lets others in. */
const SLICE_MS = 4;

/**
 * Where a subscriber's results go: its WebSocket, written to directly with the result's JSON
 * serialised once for the whole channel (graphql-ws would serialise it again per subscriber).
 */
export interface Delivery {
  /** The operation's id on its connection. */
  id: string;
  send(data: string): void;
  /** Bytes written to the socket and not yet sent. */
  backlog(): number;
  /** Closes the connection (4429): its reader does not keep up. */
  tooSlow(): void;
}

export interface SharedSubscriptionsOptions {
  /** The result as the API sends it (errors masked). */
  format(result: Result): unknown;
  /** A result whose JSON is longer than this is replaced by `tooLarge()`. */
  maxResponseBytes: number;
  tooLarge(): unknown;
  /** A connection with more than this unsent is closed as too slow. */
  maxBacklogBytes: number;
}

/**
 * One subscriber of a channel. Its iterator is graphql-ws's view of the operation: it yields
 * nothing and ends when the subscriber does (graphql-ws then sends Complete); the results
 * themselves are written to the socket by `deliver`.
 */
class Subscriber implements AsyncIterableIterator<Result> {
  private ended: (() => void) | undefined;
  private done = false;
  private readonly prefix: string;

  constructor(
    private readonly channel: Channel,
    private readonly delivery: Delivery,
  ) {
    this.prefix = `{"id":${JSON.stringify(delivery.id)},"type":"next","payload":`;
  }

  deliver(json: string): void {
    if (this.done) return;
    if (this.delivery.backlog() > this.channel.hub.o.maxBacklogBytes) return this.tooSlow();
    this.delivery.send(`${this.prefix}${json}}`);
  }

  tooSlow(): void {
    if (this.done) return;
    this.end();
    this.delivery.tooSlow();
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    this.channel.leave(this);
    this.ended?.();
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Result> {
    return this;
  }

  async next(): Promise<IteratorResult<Result>> {
    if (!this.done) await new Promise<void>((resolve) => (this.ended = resolve));
    return { value: undefined, done: true };
  }

  async return(): Promise<IteratorResult<Result>> {
    this.end();
    return { value: undefined, done: true };
  }

  async throw(err: unknown): Promise<IteratorResult<Result>> {
    this.end();
    throw err;
  }
}

/** The subscribers of one (document, operation, variables, role): one execution for all of them. */
class Channel {
  readonly subscribers = new Set<Subscriber>();
  private source: AsyncIterator<Result> | undefined;
  private closed = false;

  constructor(
    readonly hub: SharedSubscriptions,
    readonly key: string,
  ) {}

  /** Reads the source: each result is executed once, serialised once, written to every subscriber. */
  start(source: AsyncIterator<Result>): void {
    this.source = source;
    void (async () => {
      try {
        let slice = performance.now();
        for (;;) {
          const next = await source.next();
          if (next.done || this.closed) break;
          this.hub.executions++;
          const json = this.hub.serialise(next.value);
          for (const s of this.subscribers) s.deliver(json);
          // A burst of changes (thousands of co-due runs) is delivered in slices, letting the
          // event loop answer requests in between rather than after the whole burst.
          if (performance.now() - slice > SLICE_MS) {
            await new Promise((resolve) => setImmediate(resolve));
            slice = performance.now();
          }
        }
      } catch (err) {
        const json = this.hub.serialise({ errors: [err as never] });
        for (const s of this.subscribers) s.deliver(json);
      } finally {
        this.close();
        for (const s of [...this.subscribers]) s.end();
      }
    })();
  }

  leave(s: Subscriber): void {
    this.subscribers.delete(s);
    if (this.subscribers.size === 0) this.close();
  }

  /** The channel's own feed fell behind: every subscriber of it is too slow, by construction. */
  slow(): void {
    for (const s of [...this.subscribers]) s.tooSlow();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.hub.forget(this);
    void this.source?.return?.();
  }
}

/**
 * Subscriptions shared by everyone who asked the same thing. Without it every subscriber's
 * selection was executed, its loaders queried and its result serialised once per change: 100
 * subscribers of the same document did the same work 100 times, and a busy feed starved the
 * API. Here a subscription is keyed by its printed document, operation name, variables, the
 * caller's role (redaction) and scope (the jobs it sees): the facts of the context that change a
 * result. The first
 * subscriber of a key opens a channel that executes the document once per change and serialises
 * the result once; each subscriber gets those bytes written to its socket (a reader whose socket
 * backs up past the limit is closed, the others go on). The channel closes with its last
 * subscriber.
 */
export class SharedSubscriptions {
  private readonly channels = new Map<string, Channel>();
  /** Results executed (once per change and channel, whatever the number of subscribers). */
  executions = 0;

  constructor(readonly o: SharedSubscriptionsOptions) {}

  /** Open channels. */
  get channelCount(): number {
    return this.channels.size;
  }

  /** The JSON sent for a result: formatted as the API sends results, bounded in size. */
  serialise(result: Result): string {
    const json = JSON.stringify(this.o.format(result));
    return json.length > this.o.maxResponseBytes ? JSON.stringify(this.o.tooLarge()) : json;
  }

  /**
   * graphql-ws's `subscribe`: joins the channel of the operation's key, opening it if needed.
   * Operations without a delivery (no WebSocket) are executed on their own.
   */
  async subscribe(args: ExecutionArgs): Promise<AsyncIterableIterator<Result> | Result> {
    const context = args.contextValue as GraphQLContext;
    const delivery = context.delivery;
    if (!delivery) return subscribe(args) as Promise<AsyncIterableIterator<Result> | Result>;
    const key = JSON.stringify([print(args.document), args.operationName ?? null, args.variableValues ?? null, context.principal.role, context.principal.scope]);
    let channel = this.channels.get(key);
    if (!channel) {
      const opened = new Channel(this, key);
      // The channel's context is the first subscriber's, minus its connection: the channel's
      // feed falling behind ends every subscriber of the channel, not the first one's socket.
      const shared: GraphQLContext = { ...context, delivery: undefined, onSlowConsumer: () => opened.slow() };
      const source = await subscribe({ ...args, contextValue: shared });
      if (!isAsyncIterable(source)) return source; // errors before any event: nothing to share
      channel = this.channels.get(key); // another subscriber of the key may have opened it meanwhile
      if (channel) {
        void source.return?.();
      } else {
        channel = opened;
        this.channels.set(key, channel);
        channel.start(source);
      }
    }
    const subscriber = new Subscriber(channel, delivery);
    channel.subscribers.add(subscriber);
    return subscriber;
  }

  forget(channel: Channel): void {
    if (this.channels.get(channel.key) === channel) this.channels.delete(channel.key);
  }
}

function isAsyncIterable<T>(x: unknown): x is AsyncIterableIterator<T> {
  return typeof (x as { [Symbol.asyncIterator]?: unknown })?.[Symbol.asyncIterator] === 'function';
}

import { Field, Int, ObjectType } from 'type-graphql';
import type { Page } from '../services/pagination.js';
import { Job } from './job.type.js';
import { Run } from './run.type.js';

@ObjectType('PageInfo')
export class PageInfo {
  @Field(() => Boolean)
  hasNextPage!: boolean;

  @Field(() => String, { nullable: true, description: 'Pass as `after` to get the next page.' })
  endCursor?: string | null;
}

@ObjectType('JobEdge')
export class JobEdge {
  @Field(() => String)
  cursor!: string;

  @Field(() => Job)
  node!: Job;
}

@ObjectType('RunEdge')
export class RunEdge {
  @Field(() => String)
  cursor!: string;

  @Field(() => Run)
  node!: Run;
}

@ObjectType('JobConnection')
export class JobConnection {
  @Field(() => [JobEdge])
  edges!: JobEdge[];

  @Field(() => [Job])
  nodes!: Job[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;

  // Counted only when selected: the value may be a promise (toConnection), which only a resolver may return.
  @Field(() => Int, { simple: false, description: 'Matches of the filter, ignoring `first` and `after`.' })
  totalCount!: number;
}

@ObjectType('RunConnection')
export class RunConnection {
  @Field(() => [RunEdge])
  edges!: RunEdge[];

  @Field(() => [Run])
  nodes!: Run[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;

  // Counted only when selected: the value may be a promise (toConnection), which only a resolver may return.
  @Field(() => Int, { simple: false, description: 'Matches of the filter, ignoring `first` and `after`.' })
  totalCount!: number;
}

/** A service page in the Relay-style shape of the API. */
export interface Connection<T> {
  edges: { cursor: string; node: T }[];
  nodes: T[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  totalCount: number | Promise<number>;
}

/**
 * The page in the API's shape. `count` instead of a `totalCount`: the matches are counted only
 * if a query selects `totalCount` (a getter, read by GraphQL only for selected fields) — counting
 * a filter over a large history costs more than the page itself.
 */
export function toConnection<T>(page: Page<T>): Connection<T>;
export function toConnection<T>(page: Omit<Page<T>, 'totalCount'>, count: () => Promise<number>): Connection<T>;
export function toConnection<T>(page: Page<T> | Omit<Page<T>, 'totalCount'>, count?: () => Promise<number>): Connection<T> {
  const base = {
    edges: page.nodes.map((node, i) => ({ cursor: page.cursors[i], node })),
    nodes: page.nodes,
    pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.endCursor },
  };
  if (!count) return { ...base, totalCount: (page as Page<T>).totalCount };
  let counted: Promise<number> | undefined;
  return Object.defineProperty(base, 'totalCount', { get: () => (counted ??= count()), enumerable: true }) as Connection<T>;
}

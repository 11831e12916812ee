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

  @Field(() => Int, { description: 'Matches of the filter, ignoring `first` and `after`.' })
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

  @Field(() => Int, { description: 'Matches of the filter, ignoring `first` and `after`.' })
  totalCount!: number;
}

/** A service page in the Relay-style shape of the API. */
export interface Connection<T> {
  edges: { cursor: string; node: T }[];
  nodes: T[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  totalCount: number;
}

export function toConnection<T>(page: Page<T>): Connection<T> {
  return {
    edges: page.nodes.map((node, i) => ({ cursor: page.cursors[i], node })),
    nodes: page.nodes,
    pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.endCursor },
    totalCount: page.totalCount,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids of jobs and runs are UUIDs; anything else names nothing (and must not reach a uuid column). */
export const isUuid = (id: unknown): id is string => typeof id === 'string' && UUID.test(id);

/**
 * Who an audit entry names when the caller named nobody: a change made through the library API
 * (`createCronql`'s services called without an actor). Through GraphQL the actor is always the
 * principal's name (`admin`, `viewer`, a named token's name).
 */
export const LIBRARY_ACTOR = 'library';

export const auditActor = (actor: string | null | undefined): string => actor ?? LIBRARY_ACTOR;

import type { JobStore, JobStoreApi } from './job-store.js';

/**
 * A job store opened on its first use: the store and MikroORM (its unit of work, metadata and
 * query builder) cost more to load than the rest of a start that has nothing to migrate, and
 * nothing a scheduler needs to be ready uses them (the runtime reads jobs with plain SQL). A
 * failed open is tried again by the next call.
 */
export function lazyJobStore(open: () => Promise<JobStore>): JobStoreApi {
  let opening: Promise<JobStore> | undefined;
  const store = () =>
    (opening ??= open().catch((err: unknown) => {
      opening = undefined;
      throw err;
    }));
  return {
    get: (...a) => store().then((s) => s.get(...a)),
    getMany: (...a) => store().then((s) => s.getMany(...a)),
    successorsOf: (...a) => store().then((s) => s.successorsOf(...a)),
    newestByKeys: (...a) => store().then((s) => s.newestByKeys(...a)),
    list: (...a) => store().then((s) => s.list(...a)),
    create: (...a) => store().then((s) => s.create(...a)),
    createMany: (...a) => store().then((s) => s.createMany(...a)),
    supersedeMany: (...a) => store().then((s) => s.supersedeMany(...a)),
    transition: (...a) => store().then((s) => s.transition(...a)),
    changeBySelector: (...a) => store().then((s) => s.changeBySelector(...a)),
  };
}

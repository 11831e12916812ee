/**
 * Waits for `work` at most `ms` milliseconds: resolves with its value, or with undefined when it
 * takes longer (it is not canceled; its outcome is ignored). Shutdown steps use it so that a
 * database that does not answer cannot hold the process.
 */
export async function bounded<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  work.catch(() => {});
  try {
    return await Promise.race([work, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A batch id as ralph makes one: the minute it started and a random part, e.g. `20261201-1522-a1b2c3`. Nothing else
 * names a batch's folder, branches or tag, so an id read from disk that is not one is not a batch's.
 */
const BATCH_ID = /^\d{8}-\d{4}-[0-9a-f]{6}$/;

/** True when `id` is a batch id as ralph makes one (no slash, no dot: safe as a folder and a ref component). */
export const isBatchId = (id: unknown): id is string => typeof id === 'string' && BATCH_ID.test(id);

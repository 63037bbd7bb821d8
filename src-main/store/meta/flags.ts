/**
 * SQLite has no booleans: the metadata tables store flags as INTEGER 0/1. The domain's record
 * types declare them as booleans, and each table's row mapper turns them at the read.
 */

/** A row as SQLite gives it: the record's boolean flags are 0/1. */
export type Stored<R> = { [K in keyof R]: R[K] extends boolean ? number : R[K] }

/** A stored flag, read. */
export const flag = (stored: number): boolean => stored === 1

/** A flag as SQLite and the API (spec 2.8: 0/1) write it. */
export const asFlag = (value: boolean): 0 | 1 => (value ? 1 : 0)

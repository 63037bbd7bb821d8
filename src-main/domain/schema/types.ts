/** The data types of properties and dimension columns (spec 2.5); their engine types are the dialect's. */
export const DATA_TYPES = ['string', 'number', 'boolean', 'datetime', 'array<string>'] as const
export type DataType = (typeof DATA_TYPES)[number]

export function isDataType(value: unknown): value is DataType {
  return typeof value === 'string' && (DATA_TYPES as readonly string[]).includes(value)
}

/** Columns of event_vd / profile_vd that are not properties; no property may take these ids. */
export const EVENT_BASE_COLUMNS = ['distinct_id', 'xwho', 'xwhat', 'xwhen', 'ds'] as const
export const PROFILE_BASE_COLUMNS = ['distinct_id', 'xwho'] as const

/** A property id as data may carry it: folded to lower case; `$` marks the SDK's own. */
export const PROPERTY_ID = /^\$?[a-z_][a-z0-9_]*$/
export const PROPERTY_ID_MAX = 125
/** Ids created through the schema API (part 8): letters, digits, underscore, not a digit first, <= 100. */
export const SCHEMA_ID = /^[A-Za-z_][A-Za-z0-9_]{0,99}$/
/** An event id (spec-notes): starts with a letter or `$`, at most 99 characters. */
export const EVENT_ID = /^[A-Za-z$][A-Za-z0-9_$]{0,98}$/

/**
 * A DuckDB identifier for a checked id: ids never contain quotes, this only adds them. Left for
 * ingest/load.ts alone, which moves onto the dialect's `ident` (the same rule); delete it then.
 */
export function column(id: string): string {
  if (!PROPERTY_ID.test(id) && !/^[a-z_][a-z0-9_]*$/.test(id)) throw new Error(`not a checked identifier: ${id}`)
  return `"${id}"`
}

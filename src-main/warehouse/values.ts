/**
 * The one value policy of the warehouse: how engine values reach JavaScript. The engine's own
 * conversion comes first (`exact`: BIGINT and HUGEINT as bigint, DECIMAL and DOUBLE as number,
 * DATE and TIMESTAMP as Date, lists as arrays, structs as objects); a policy then adapts what its
 * readers need. Several exist because their readers promised different things and keep them:
 */
export type ValuePolicy =
  /** The engine's values unchanged: code that computes with them (counts, ids) converts itself. */
  | 'exact'
  /**
   * Every bigint a number, also inside a list (one level): the analyses' answers, whose counts
   * are far below 2^53 and whose consumers read numbers.
   */
  | 'number'
  /**
   * A bigint a number while it is exact, else its decimal text, lists at any depth: rows streamed
   * as JSON (custom SQL, exports), where a rounded id would silently be another id.
   */
  | 'json'
  /**
   * For a person to read (the import preview): bigint a number, a date ISO-8601 text, other engine
   * objects (intervals, UUIDs, …) their text, lists at any depth.
   */
  | 'display'

function toNumber(value: unknown): unknown {
  return typeof value === 'bigint' ? Number(value) : value
}

/** One value under the `json` policy, for rows read exact and sent as JSON later. */
export function jsonValue(value: unknown): unknown {
  if (typeof value === 'bigint') return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value.toString()
  if (Array.isArray(value)) return value.map(jsonValue)
  return value
}

function toDisplay(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value)
  if (value instanceof Date) return value.toISOString()
  if (Array.isArray(value)) return value.map(toDisplay)
  if (value && typeof value === 'object' && 'toString' in value && !(value.constructor === Object)) return String(value)
  return value
}

/** One value under a policy. */
export function policyValue(value: unknown, policy: ValuePolicy): unknown {
  switch (policy) {
    case 'exact':
      return value
    case 'number':
      return Array.isArray(value) ? value.map(toNumber) : toNumber(value)
    case 'json':
      return jsonValue(value)
    case 'display':
      return toDisplay(value)
  }
}

/** A row of values under a policy (the row itself when the policy changes nothing). */
export function policyRow<R extends Record<string, unknown>>(row: R, policy: ValuePolicy): R {
  if (policy === 'exact') return row
  const out: Record<string, unknown> = {}
  for (const key in row) out[key] = policyValue(row[key], policy)
  return out as R
}

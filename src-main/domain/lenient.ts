/**
 * Values read as the platform's server (a Java web application) reads them, for tools written for
 * it: a number sent as a decimal string, a string sent as a number, "true"/"false", and enum words
 * in any letter case, where the field takes one kind of value. Anything else is left as it came,
 * for the field's own check to refuse with a 400 naming it.
 */

const DECIMAL = /^\s*-?\d+(\.\d+)?\s*$/

/** "6" -> 6, "1.5" -> 1.5; anything else unchanged. */
export function numeric(value: unknown): unknown {
  return typeof value === 'string' && DECIMAL.test(value) ? Number(value) : value
}

/** 6 -> "6"; anything else unchanged. */
export function textual(value: unknown): unknown {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : value
}

/** "true" / "false" -> booleans; anything else unchanged. */
export function flag(value: unknown): unknown {
  return value === 'true' ? true : value === 'false' ? false : value
}

/** An upper-case enum word written in any case ("day" -> "DAY") when it is one of `allowed`; anything else unchanged. */
export function word(value: unknown, allowed: readonly string[]): unknown {
  if (typeof value !== 'string') return value
  const upper = value.toUpperCase()
  return allowed.includes(upper) ? upper : value
}

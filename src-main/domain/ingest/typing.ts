import type { DataType } from '../schema/types'

/**
 * SQL for reading values of a data type strictly: from text (CSV, Excel, Parquet cells) and from
 * JSON (SDK records). Each reader gives the typed value and a test that the raw value did not fit,
 * so a record is rejected with a reason instead of being coerced. `raw` and `json` are SQL
 * expressions over checked column names, never request text.
 */

export const DATETIME_FORMATS = "['%Y-%m-%d %H:%M:%S.%g', '%Y-%m-%d %H:%M:%S', '%Y-%m-%d']"

/**
 * A local date-time as text, parsed. The cheap shape test first: strptime with a list of formats
 * costs ten times a regex, and most text that reaches here is not a date at all.
 */
function localDateTime(text: string): string {
  return `CASE WHEN regexp_full_match(${text}, '[0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9:.]+)?')
    THEN COALESCE(try_strptime(${text}, ${DATETIME_FORMATS}), TRY_CAST(${text} AS TIMESTAMP)) END`
}

export interface TypedRead {
  /** The value as the warehouse stores it (NULL when absent). */
  value: string
  /** True when a value was present but does not fit the type. */
  misfit: string
}

/** A JSON array of strings only, e.g. '["a","b"]'. */
function stringArray(json: string): string {
  return `(json_type(${json}) = 'ARRAY' AND list_bool_and(list_transform(json_extract(${json}, '$[*]'), x -> json_type(x) = 'VARCHAR')) IS NOT FALSE)`
}

/** Reading a text cell as `type`. Empty cells are absent values. */
export function fromText(raw: string, type: DataType): TypedRead {
  const present = `(${raw} IS NOT NULL AND ${raw} <> '')`
  switch (type) {
    case 'string':
      return { value: `NULLIF(${raw}, '')`, misfit: 'false' }
    case 'number': {
      const value = `TRY_CAST(NULLIF(${raw}, '') AS DOUBLE)`
      return { value, misfit: `(${present} AND (${value} IS NULL OR NOT isfinite(${value})))` }
    }
    case 'boolean': {
      const value = `CASE lower(${raw}) WHEN 'true' THEN true WHEN 'false' THEN false END`
      return { value, misfit: `(${present} AND ${value} IS NULL)` }
    }
    case 'datetime': {
      const value = localDateTime(raw)
      return { value: `CASE WHEN ${present} THEN ${value} END`, misfit: `(${present} AND ${value} IS NULL)` }
    }
    case 'array<string>': {
      // CASE, not AND: the JSON functions must not see text that is not JSON
      const ok = `CASE WHEN json_valid(${raw}) THEN ${stringArray(raw)} ELSE false END`
      return { value: `CASE WHEN ${present} AND (${ok}) THEN CAST(CAST(${raw} AS JSON) AS VARCHAR[]) END`, misfit: `(${present} AND NOT (${ok}))` }
    }
  }
}

/** Reading the JSON value at `json` (a JSON expression; SQL NULL or JSON null = absent) as `type`. */
export function fromJson(json: string, type: DataType): TypedRead {
  const kind = `json_type(${json})`
  const present = `(${json} IS NOT NULL AND ${kind} <> 'NULL')`
  switch (type) {
    case 'string':
      return { value: `CASE WHEN ${kind} = 'VARCHAR' THEN ${json}->>'$' END`, misfit: `(${present} AND ${kind} <> 'VARCHAR')` }
    case 'number':
      return {
        value: `CASE WHEN ${kind} IN ('BIGINT', 'UBIGINT', 'DOUBLE') THEN CAST(${json} AS DOUBLE) END`,
        misfit: `(${present} AND ${kind} NOT IN ('BIGINT', 'UBIGINT', 'DOUBLE'))`,
      }
    case 'boolean':
      return { value: `CASE WHEN ${kind} = 'BOOLEAN' THEN CAST(${json} AS BOOLEAN) END`, misfit: `(${present} AND ${kind} <> 'BOOLEAN')` }
    case 'datetime': {
      const text = `(${json}->>'$')`
      const parsed = localDateTime(text)
      return {
        value: `CASE WHEN ${kind} = 'VARCHAR' THEN ${parsed} END`,
        misfit: `(${present} AND (${kind} <> 'VARCHAR' OR ${parsed} IS NULL))`,
      }
    }
    case 'array<string>':
      return {
        value: `CASE WHEN ${kind} = 'ARRAY' AND ${stringArray(json)} THEN CAST(${json} AS VARCHAR[]) END`,
        misfit: `(${present} AND NOT (${kind} = 'ARRAY' AND ${stringArray(json)}))`,
      }
  }
}

/**
 * The event time (`xwhen`) from text: epoch milliseconds, epoch seconds, ISO 8601 with a zone, or a
 * local time (ISO 8601 or yyyy-MM-dd HH:mm:ss[.SSS] or yyyy-MM-dd) read in the session's time zone,
 * which the warehouse sets to the project's. NULL when it is none of these.
 */
export function eventTime(raw: string): string {
  return `CASE
    WHEN regexp_full_match(${raw}, '[0-9]{12,14}') THEN to_timestamp(CAST(${raw} AS BIGINT) / 1000.0)
    WHEN regexp_full_match(${raw}, '[0-9]{9,11}') THEN to_timestamp(CAST(${raw} AS BIGINT))
    WHEN regexp_matches(${raw}, '(Z|z|[+-][0-9]{2}(:?[0-9]{2})?)$') THEN TRY_CAST(${raw} AS TIMESTAMPTZ)
    ELSE CAST(${localDateTime(raw)} AS TIMESTAMPTZ)
  END`
}

/** The project-local day of a TIMESTAMPTZ as a yyyyMMdd integer (`ds`). */
export function dayOf(ts: string): string {
  return `(year(${ts}) * 10000 + month(${ts}) * 100 + day(${ts}))`
}

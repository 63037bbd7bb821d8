import type { ValueType as DataType } from '../../dialect'
import type { CellKind, Decimal, TypedRead, TypedReadsPart } from '../../parts/typedReads'

/**
 * SQL for reading values of a data type strictly: from text (CSV, Excel, Parquet cells) and from
 * JSON (SDK records). Each reader gives the typed value and a test that the raw value did not fit,
 * so a record is rejected with a reason instead of being coerced. `raw` and `text` are SQL
 * expressions over checked column names, never request text.
 *
 * The misfit test is written over the column the value was computed into (the callers compute
 * each value once, one projection below their checks): re-deriving it per check would cast,
 * parse or match every value twice.
 */

const DATETIME_FORMATS = "['%Y-%m-%d %H:%M:%S.%g', '%Y-%m-%d %H:%M:%S', '%Y-%m-%d']"

/**
 * A local date-time as text, parsed. The cheap shape test first: strptime with a list of formats
 * costs ten times a regex, and most text that reaches here is not a date at all.
 */
function localDateTime(text: string): string {
  return `CASE WHEN regexp_full_match(${text}, '[0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9:.]+)?')
    THEN COALESCE(try_strptime(${text}, ${DATETIME_FORMATS}), TRY_CAST(${text} AS TIMESTAMP)) END`
}

/** What a cell of a column of the engine's `type` holds, as the plan reads it (CellKind). */
function cellKindOf(type: string): CellKind {
  // only where the stored value and its text read back alike: a FLOAT's text is its shortest form
  // (1.1, not 1.100000023841858 as a DOUBLE), a DECIMAL or HUGEINT may round otherwise
  if (/^U?(TINYINT|SMALLINT|INTEGER|BIGINT)$/.test(type)) return 'integer'
  if (type === 'DOUBLE') return 'float'
  if (type === 'BOOLEAN') return 'boolean'
  return 'text'
}

/** A staged cell as text, as `fromText` and the rejection reasons read it. */
function cellText(raw: string, kind: CellKind): string {
  return kind === 'text' ? raw : `CAST(${raw} AS VARCHAR)`
}

/**
 * Reading a staged cell of `kind` as `type`: a stored number as a number, a stored flag as a
 * boolean, directly (its text would parse back to the same value); anything else through its text.
 */
function fromCell(raw: string, kind: CellKind, type: DataType, decimal: Decimal = '.'): TypedRead {
  if ((kind === 'integer' || kind === 'float') && type === 'number') {
    // NaN and infinities are in a Parquet DOUBLE; as text they were no number either
    return { value: `CAST(${raw} AS DOUBLE)`, misfit: (v) => `(${raw} IS NOT NULL AND NOT isfinite(${v}))` }
  }
  if (kind === 'boolean' && type === 'boolean') return { value: raw, misfit: () => 'false' }
  return fromText(cellText(raw, kind), type, decimal)
}

/**
 * `eventTime` of a staged cell: a stored whole number is read as epoch ms or s by its size, as its
 * digits would be (12-14 digits: ms, 9-11: s); any other value through its text.
 */
function eventTimeOfCell(raw: string, kind: CellKind): string {
  if (kind !== 'integer') return eventTime(cellText(raw, kind), true)
  const n = `CAST(${raw} AS BIGINT)`
  return `CASE WHEN ${raw} BETWEEN 100000000000 AND 99999999999999 THEN to_timestamp(${n} / 1000.0)
    WHEN ${raw} BETWEEN 100000000 AND 99999999999 THEN to_timestamp(${n})
    ELSE ${eventTime(cellText(raw, kind), true)} END`
}

/** A JSON array of strings only, e.g. '["a","b"]'. */
function stringArray(json: string): string {
  return `(json_type(${json}) = 'ARRAY' AND list_bool_and(list_transform(json_extract(${json}, '$[*]'), x -> json_type(x) = 'VARCHAR')) IS NOT FALSE)`
}

/**
 * Reading a text cell as `type`. Empty cells are absent values. With a decimal comma, a number
 * reads as 1,5 (digits and at most one comma: a point or an exponent does not fit).
 */
function fromText(raw: string, type: DataType, decimal: Decimal = '.'): TypedRead {
  const present = `(${raw} IS NOT NULL AND ${raw} <> '')`
  const absentOr = (v: string) => `(${present} AND ${v} IS NULL)`
  switch (type) {
    case 'string':
      return { value: `NULLIF(${raw}, '')`, misfit: () => 'false' }
    case 'number': {
      const text = decimal === ',' ? `CASE WHEN regexp_full_match(${raw}, '\\s*[+-]?([0-9]+(,[0-9]*)?|,[0-9]+)\\s*') THEN replace(${raw}, ',', '.') END` : `NULLIF(${raw}, '')`
      return { value: `TRY_CAST(${text} AS DOUBLE)`, misfit: (v) => `(${present} AND (${v} IS NULL OR NOT isfinite(${v})))` }
    }
    case 'boolean':
      // the exact spellings first: lower() copies every cell
      return {
        value: `CASE ${raw} WHEN 'true' THEN true WHEN 'false' THEN false ELSE CASE lower(${raw}) WHEN 'true' THEN true WHEN 'false' THEN false END END`,
        misfit: absentOr,
      }
    case 'datetime':
      return { value: `CASE WHEN ${present} THEN ${localDateTime(raw)} END`, misfit: absentOr }
    case 'array<string>': {
      // CASE, not AND: the JSON functions must not see text that is not JSON
      const ok = `CASE WHEN json_valid(${raw}) THEN ${stringArray(raw)} ELSE false END`
      return { value: `CASE WHEN ${present} AND (${ok}) THEN CAST(CAST(${raw} AS JSON) AS VARCHAR[]) END`, misfit: absentOr }
    }
  }
}

/**
 * The kind of a JSON value from its text's first character. `text` is the VARCHAR of a value that
 * from_json(..., 'JSON') extracted: DuckDB writes it back minified, so the first character tells
 * the kind exactly: a string starts with ", a number with - or a digit (or N, I: NaN, Infinity,
 * which DuckDB's reader accepts). This replaces json_type(), which parses each value again.
 * ascii() of the first character is the cheapest test; comparisons, not an IN list: the optimizer
 * turns a long IN list into a join, one per property.
 */
const jsonKind = {
  string: (text: string) => `starts_with(${text}, '"')`,
  number: (text: string) => `(ascii(${text}) BETWEEN 45 AND 57 OR ascii(${text}) = 73 OR ascii(${text}) = 78)`,
  integer: (text: string) => `regexp_full_match(${text}, '-?[0-9]+')`,
  /**
   * A JSON string's content; NULL for any other kind. Text without a backslash has nothing to
   * unescape: cutting the quotes off is exact there, and much cheaper than parsing it again.
   */
  stringValue: (text: string) => `CASE WHEN starts_with(${text}, '"') THEN CASE WHEN contains(${text}, '\\') THEN CAST(${text} AS JSON)->>'$' ELSE ${text}[2:-2] END END`,
}

/**
 * Reading a JSON value given as text (see `jsonKind`; SQL NULL = absent, as from_json gives JSON
 * null) as `type`.
 */
function fromJsonText(text: string, type: DataType): TypedRead {
  const present = `(${text} IS NOT NULL)`
  const absentOr = (v: string) => `(${present} AND ${v} IS NULL)`
  switch (type) {
    case 'string':
      return { value: jsonKind.stringValue(text), misfit: () => `(${present} AND NOT ${jsonKind.string(text)})` }
    case 'number':
      return { value: `CASE WHEN ${jsonKind.number(text)} THEN TRY_CAST(${text} AS DOUBLE) END`, misfit: () => `(${present} AND NOT ${jsonKind.number(text)})` }
    case 'boolean':
      return { value: `CASE ${text} WHEN 'true' THEN true WHEN 'false' THEN false END`, misfit: absentOr }
    case 'datetime':
      return { value: `CASE WHEN ${jsonKind.string(text)} THEN ${localDateTime(jsonKind.stringValue(text))} END`, misfit: absentOr }
    case 'array<string>': {
      const json = `CAST(${text} AS JSON)`
      return { value: `CASE WHEN starts_with(${text}, '[') AND ${stringArray(json)} THEN CAST(${json} AS VARCHAR[]) END`, misfit: absentOr }
    }
  }
}

/**
 * The event time (`xwhen`) from text: epoch milliseconds, epoch seconds, ISO 8601 with a zone, or a
 * local time (ISO 8601 or yyyy-MM-dd HH:mm:ss[.SSS] or yyyy-MM-dd) read in the session's time zone,
 * which the warehouse sets to the project's. NULL when it is none of these. With `trim`, the text
 * is read trimmed; the first arm tries it untrimmed, so the common case (clean epoch ms) costs no
 * copy of the text.
 */
function eventTime(raw: string, trim: boolean): string {
  const text = trim ? `trim(${raw})` : raw
  const clean = trim ? `WHEN regexp_full_match(${raw}, '[0-9]{12,14}') THEN to_timestamp(CAST(${raw} AS BIGINT) / 1000.0)` : ''
  return `CASE ${clean}
    WHEN regexp_full_match(${text}, '[0-9]{12,14}') THEN to_timestamp(CAST(${text} AS BIGINT) / 1000.0)
    WHEN regexp_full_match(${text}, '[0-9]{9,11}') THEN to_timestamp(CAST(${text} AS BIGINT))
    WHEN regexp_matches(${text}, '(Z|z|[+-][0-9]{2}(:?[0-9]{2})?)$') THEN TRY_CAST(${text} AS TIMESTAMPTZ)
    ELSE CAST(${localDateTime(text)} AS TIMESTAMPTZ)
  END`
}

/**
 * The project-local day of a TIMESTAMPTZ as a yyyyMMdd integer (`ds`), given `date`, its local
 * DATE (localDate.ts), computed once: year(), month() and day() on the TIMESTAMPTZ itself would
 * each do their own time-zone lookup.
 */
function dayOfDate(date: string): string {
  return `(year(${date}) * 10000 + month(${date}) * 100 + day(${date}))`
}

export const typedReads: TypedReadsPart = {
  cellKindOf,
  cellText,
  fromCell,
  eventTimeOfCell,
  loadTime: () => 'now()',
  fromText,
  fromJsonText,
  eventTime,
  dayOfDate,
  jsonTextIsString: jsonKind.string,
  jsonTextIsNumber: jsonKind.number,
  jsonTextIsInteger: jsonKind.integer,
  jsonTextString: jsonKind.stringValue,
}

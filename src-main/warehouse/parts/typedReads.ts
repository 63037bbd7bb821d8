import type { ValueType } from '../dialect'

/** The decimal mark of a CSV or TSV file's numbers. */
export type Decimal = '.' | ','

/** A value read strictly as a type: the value, and the test that the raw value did not fit. */
export interface TypedRead {
  /** The value as the warehouse stores it (NULL when absent), from the raw input. */
  value: string
  /** True when a value was present but does not fit the type; `value` names the computed value. */
  misfit: (value: string) => string
}

/**
 * What a staged cell holds: text (CSV, Excel, and Parquet columns of other types, as text), or a
 * Parquet number or flag as the file stores it (a streamed stage, domain/ingest/stage.ts), read
 * without a trip through text. Each reads exactly as its text would.
 */
export type CellKind = 'text' | 'integer' | 'float' | 'boolean'

/**
 * Reading imported values of a data type strictly (domain/ingest: tabular.ts, records.ts): from
 * staged cells of files and from the JSON of SDK records, so that a record is rejected with a
 * reason instead of being coerced. `raw` and `text` are SQL expressions over checked column
 * names, never request text.
 */
export interface TypedReadsPart {
  /** What a staged cell of a column of the engine's `type` (its type name) holds, as a plan reads it. */
  cellKindOf(type: string): CellKind
  /** A staged cell as text, as `fromText` and the rejection reasons read it. */
  cellText(raw: string, kind: CellKind): string
  /** Reading a staged cell of `kind` as `type`. */
  fromCell(raw: string, kind: CellKind, type: ValueType, decimal?: Decimal): TypedRead
  /** The event time of a staged cell: a stored whole number as epoch ms or s by its size, else as `eventTime` of its text. */
  eventTimeOfCell(raw: string, kind: CellKind): string
  /** The time of the statement that loads, as an event time (the time of a profile row imported from a file). */
  loadTime(): string
  /** Reading a text cell as `type`: empty cells are absent values. */
  fromText(raw: string, type: ValueType, decimal?: Decimal): TypedRead
  /** Reading a JSON value given as its text (SQL NULL: absent) as `type`. */
  fromJsonText(text: string, type: ValueType): TypedRead
  /**
   * The event time (`xwhen`) from text: epoch ms, epoch s, ISO 8601 with a zone, or a local time
   * read in the session's time zone; NULL when it is none of these. `trim`: read the text trimmed.
   */
  eventTime(raw: string, trim: boolean): string
  /** The yyyyMMdd integer (`ds`) of `date`, a local DATE. */
  dayOfDate(date: string): string
  /** Whether a JSON value's text is a string. */
  jsonTextIsString(text: string): string
  /** Whether a JSON value's text is a number. */
  jsonTextIsNumber(text: string): string
  /** Whether a JSON value's text is a whole number. */
  jsonTextIsInteger(text: string): string
  /** A JSON string's content from its text; NULL for any other kind. */
  jsonTextString(text: string): string
}

import type { BoundValue } from './index'
import type { AggregatesPart } from './parts/aggregates'
import type { ArraysPart } from './parts/arrays'
import type { CustomSqlPart } from './parts/customSql'
import type { FilesPart } from './parts/files'
import type { FunnelsPart } from './parts/funnels'
import type { LoadsPart } from './parts/loads'
import type { GeneratorPart } from './parts/generator'
import type { ImportsPart } from './parts/imports'
import type { NamesPart } from './parts/names'
import type { NumbersPart } from './parts/numbers'
import type { OutcomesPart } from './parts/outcomes'
import type { QueryPart } from './parts/query'
import type { RecordsPart } from './parts/records'
import type { ResultTextPart } from './parts/resultText'
import type { RetentionPart } from './parts/retention'
import type { SamplePart } from './parts/sample'
import type { TablesPart } from './parts/tables'
import type { TextPart } from './parts/text'
import type { TimePart } from './parts/time'
import type { TypedReadsPart } from './parts/typedReads'
import type { UsersPart } from './parts/users'
import type { UserSetsPart } from './parts/userSets'

/**
 * The engine seam, SQL side: every piece of engine SQL text the domain needs. The domain builds
 * queries from these pieces and never writes engine functions itself; it receives the dialect from
 * its environment (`ctx.dialect`, `env.dialect`), never by importing an engine's code. DuckDB is
 * the first implementation (duckdb/dialect.ts).
 *
 * The dialect is composed of small parts, one interface per file under parts/ with its DuckDB
 * implementation under duckdb/parts/: to add a part, declare it there and list it below and in
 * duckdb/dialect.ts.
 */
export interface Dialect extends NamesPart, TimePart, UsersPart, SamplePart, ArraysPart, TextPart, NumbersPart, QueryPart, UserSetsPart, CustomSqlPart, TablesPart, ResultTextPart, RecordsPart, LoadsPart, GeneratorPart, AggregatesPart, ImportsPart, TypedReadsPart, FilesPart, FunnelsPart, RetentionPart, OutcomesPart {}

/** The data types of properties (domain/schema/types.ts DataType: the same names). */
export type ValueType = 'string' | 'number' | 'boolean' | 'datetime' | 'array<string>'

/** The types SQL text may name: the property types, and the few that analyses compute with. */
export type SqlType = ValueType | 'integer' | 'bigint' | 'date' | 'instant'

/** Values of one statement, bound by position: nothing from a request is pasted into SQL. */
export interface SqlParams {
  readonly values: BoundValue[]
  /** Binds a value; returns its placeholder. */
  add(value: BoundValue): string
  /** Binds each value; returns their placeholders, comma separated. */
  list(values: (string | number)[]): string
}

/**
 * A column read by a query: of `table` (event_vd or profile_vd), read through the row alias `row`
 * (usually `e` for events, `u` for profiles); `column` a checked id (or null: the plan knows the
 * property but no data has made its column yet, so it reads as NULL of its type); `base` a
 * built-in column (xwho, distinct_id).
 */
export interface ColumnRef {
  table: 'event_vd' | 'profile_vd'
  row: string
  column: string | null
  type: ValueType
  base?: boolean
}

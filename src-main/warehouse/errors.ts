import { AppError } from '../errors'
import { ClickHouseError } from './clickhouse/errors'

/**
 * The one place that reads the engine's failures. Callers ask what kind of failure they caught
 * and turn it into the product's errors (statuses and words stay theirs); no other module matches
 * the engine's message texts.
 */
export type EngineFailure =
  /** The query was stopped (`interrupt`): a cancel, a time limit, a closing server. */
  | 'interrupted'
  /** The query needed more memory than the database's limit. */
  | 'out-of-memory'
  /** The CSV reader refused the file (a line it could not split or decode, or no dialect found). */
  | 'unreadable-csv'
  /** A reader refused its input otherwise: invalid input, a file it could not read, a value it could not convert. */
  | 'unreadable-input'
  /** Any other failure of the engine or of the statement (syntax, binding, a constraint). */
  | 'other'

// DuckDB names the kind of every error at the start of its message: "Out of Memory Error: ..."
const KINDS: [RegExp, EngineFailure][] = [
  [/^INTERRUPT Error/i, 'interrupted'],
  [/^Out of Memory Error/i, 'out-of-memory'],
  [/^Invalid Input Error: (CSV Error|Error when sniffing)/, 'unreadable-csv'],
  [/^(Invalid Input|Invalid|IO|Conversion) Error: /, 'unreadable-input'],
]

// ClickHouse names the kind by its code: cancelled (KILL QUERY) or timed out, memory limit, input it could not parse
const CLICKHOUSE_KINDS: Record<number, EngineFailure> = { 394: 'interrupted', 159: 'interrupted', 241: 'out-of-memory', 6: 'unreadable-input', 26: 'unreadable-input', 27: 'unreadable-input', 38: 'unreadable-input', 41: 'unreadable-input', 72: 'unreadable-input', 117: 'unreadable-input' }

/** What kind of engine failure `err` is; null for what is not an Error (nothing to read). */
export function engineFailure(err: unknown): EngineFailure | null {
  if (!(err instanceof Error)) return null
  if (err instanceof ClickHouseError) return CLICKHOUSE_KINDS[err.code] ?? 'other'
  for (const [pattern, kind] of KINDS) if (pattern.test(err.message)) return kind
  return 'other'
}

/** Whether a reader refused its input (CSV or other): the file's problem, not the server's. */
export function unreadableInput(err: unknown): boolean {
  const kind = engineFailure(err)
  return kind === 'unreadable-csv' || kind === 'unreadable-input'
}

/** The first line of a failure's message without the engine's kind ("Conversion Error: "), for the user. */
export function failureText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err)
  return text.split('\n')[0].replace(/^[A-Za-z ]+Error: /, '')
}

/**
 * Why a reader refused a file, where its words say more than its kind: a line past the reader's
 * maximum, or a compressed file that is damaged or cut short (the engine's or Node's zlib).
 */
export function readerProblem(err: unknown): 'line-too-long' | 'damaged-compression' | null {
  const text = err instanceof Error ? err.message : String(err)
  if (/Maximum line size/i.test(failureText(err))) return 'line-too-long'
  if (/gzip|zlib|inflate/i.test(text)) return 'damaged-compression'
  return null
}

/**
 * A statement the project's ClickHouse server refused, in the words a request gets (its 503) and
 * background work records (a cohort's, a tag's or a job's failure): what runs there today is in
 * docs/clickhouse.md. Null for any other failure.
 */
export function warehouseRefusal(err: unknown): AppError | null {
  if (!(err instanceof ClickHouseError)) return null
  return new AppError(503, 503, `the project's ClickHouse server cannot run this request yet (ClickHouse error ${err.code})`)
}

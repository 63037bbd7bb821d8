/**
 * ClickHouse's errors as typed values. The server answers an error as text starting `Code: NNN`:
 * 18.16 writes `Code: 62, e.displayText() = DB::Exception: <message>, e.what() = DB::Exception`,
 * current versions `Code: 62. DB::Exception: <message>. (SYNTAX_ERROR) (version 24.x)`. When the
 * error happens after the first rows were sent, the same text is appended to a 200 response body.
 */
export type ClickHouseErrorKind =
  | 'syntax'
  | 'unknown-name' // function, identifier, table, column or database
  | 'type'
  | 'cancelled'
  | 'timeout'
  | 'too-large' // row, byte or memory limits
  | 'read-only'
  | 'auth'
  | 'busy'
  | 'other'

const KINDS: Record<number, ClickHouseErrorKind> = {
  62: 'syntax',
  16: 'unknown-name',
  46: 'unknown-name',
  47: 'unknown-name',
  60: 'unknown-name',
  81: 'unknown-name',
  43: 'type',
  53: 'type',
  394: 'cancelled',
  159: 'timeout',
  158: 'too-large',
  241: 'too-large',
  396: 'too-large',
  164: 'read-only',
  192: 'auth',
  193: 'auth',
  194: 'auth',
  516: 'auth',
  202: 'busy',
  216: 'busy',
}

/** An error ClickHouse reported, with its numeric code (the stable part) and the message without the wrapping. */
export class ClickHouseError extends Error {
  readonly kind: ClickHouseErrorKind
  constructor(
    readonly code: number,
    message: string,
    /** The query id the error belongs to, for the log and for KILL QUERY. */
    readonly queryId: string,
  ) {
    super(`ClickHouse error ${code}: ${message}`)
    this.name = 'ClickHouseError'
    this.kind = KINDS[code] ?? 'other'
  }
}

/** The server could not be reached at all (refused, unknown host, reset before any answer, client timeout). */
export class EngineUnavailableError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`ClickHouse at ${url} is unavailable: ${reason}`)
    this.name = 'EngineUnavailableError'
  }
}

const CODE = /Code: (\d+)[,.] (?:e\.code\(\) = -?\d+, )?(?:e\.displayText\(\) = )?(?:DB::)?Exception: /g

/**
 * Reads `Code: NNN` from an error body (`tail` false: the first one, as the message may quote the
 * query) or from the end of a 200 body cut by an error (`tail` true: the last one), and cleans the message.
 */
export function parseError(text: string, queryId: string, tail = false): ClickHouseError | null {
  const found = [...text.matchAll(CODE)]
  const m = tail ? found.at(-1) : found[0]
  if (!m) return null
  const message = text
    .slice(m.index + m[0].length)
    .trim()
    .replace(/, e\.what\(\) = [\w:]+$/, '')
    .replace(/ \(version [^)]*\)$/, '')
    .replace(/\. \([A-Z_]+\)$/, '')
    .trim()
  return new ClickHouseError(Number(m[1]), message, queryId)
}

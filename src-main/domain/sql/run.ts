import type { BoundValues, WarehouseSession } from '../../warehouse'
import { dialectOf, type DomainContext } from '../context'
import { badParam, engineUnavailable } from '../errors'
import type { ProjectScope } from '../project/scope'
import { sqlLimits, takeSlot, timeLimitReached, tooLargeToSend, type SqlEndpoint, type SqlLimits } from './limits'
import { BOM, EOL } from './csv'
import { csvHeader, renderQuery, type OutColumn, type SqlFormat } from './render'
import { checkSql, checkText, onUserSql, queryScope } from './statement'

/** Custom SQL (spec 4.7): a checked SELECT on the project's tables, written as CSV or JSON. */
export interface SqlRequest {
  sql: string
  format?: SqlFormat
  /** CSV only: start with a UTF-8 byte order mark, for spreadsheet tools (csvUtfEncoding=0). */
  bom?: boolean
}

/**
 * POST /uba/api/sql/query: the whole result in one answer, CSV or one JSON array. A result past
 * the row limit is a 400 (nothing is sent); with the limit off (-1) the rows are sent as they come.
 */
export function sqlQuery(ctx: DomainContext, scope: ProjectScope, request: SqlRequest, signal: AbortSignal): AsyncGenerator<string> {
  return run(ctx, scope, request, 'query', signal)
}

/** POST /uba/api/sql/export: streamed, CSV or one JSON object per line, in constant memory. */
export function sqlExport(ctx: DomainContext, scope: ProjectScope, request: SqlRequest, signal: AbortSignal): AsyncGenerator<string> {
  return run(ctx, scope, request, 'export', signal)
}

/** The rendered lines, one string per row, a chunk (about 2,048 rows) at a time. */
async function* linesOf(session: WarehouseSession, sql: string, values: BoundValues): AsyncGenerator<string[]> {
  const chunks = session.streamColumn(sql, values)[Symbol.asyncIterator]()
  for (;;) {
    const chunk = await onUserSql(() => chunks.next())
    if (chunk.done) break
    yield chunk.value as string[]
  }
  // an interrupted stream ends like a complete one
  if (session.interrupted) throw engineUnavailable('the query was stopped before its end')
}

/** Fails once more than `limit` rows have come (null: no limit). */
async function* capped(chunks: AsyncIterable<string[]>, limit: number | null): AsyncGenerator<string[]> {
  let rows = 0
  for await (const lines of chunks) {
    rows += lines.length
    if (limit !== null && rows > limit) {
      throw badParam(
        'sql',
        `the result has more than ${limit} rows, the most the query endpoint returns (setting svcweb.open_api.sqlquery.limit): add LIMIT, or use /uba/api/sql/export, which has no row limit`,
      )
    }
    yield lines
  }
}

/**
 * The body as pieces. The head (BOM, CSV header, `[`) goes out with the first rows, so that a query
 * failing on its first rows still gets an ordinary JSON error.
 */
async function* body(chunks: AsyncIterable<string[]>, columns: OutColumn[], request: SqlRequest, endpoint: SqlEndpoint): AsyncGenerator<string> {
  const csv = request.format !== 'json'
  const array = !csv && endpoint === 'query'
  let head = csv ? `${request.bom ? BOM : ''}${csvHeader(columns)}${EOL}` : array ? '[' : ''
  let separator = ''
  for await (const lines of chunks) {
    if (lines.length === 0) continue
    let piece: string
    if (csv) piece = lines.join(EOL) + EOL
    else if (array) piece = separator + lines.join(',')
    else piece = lines.join('\n') + '\n'
    separator = ','
    yield head + piece
    head = ''
  }
  const tail = array ? ']' : ''
  if (head || tail) yield head + tail
}

async function* run(ctx: DomainContext, scope: ProjectScope, request: SqlRequest, endpoint: SqlEndpoint, signal: AbortSignal): AsyncGenerator<string> {
  const limits: SqlLimits = sqlLimits(ctx, endpoint)
  const release = takeSlot(ctx)
  let session: WarehouseSession | undefined
  let timedOut = false
  let again: NodeJS.Timeout | undefined
  // A client that went away or a query past its time stops in the engine, not only here. The
  // interrupt is repeated until the end: one that lands between two statements of the session
  // would be lost.
  const stop = () => {
    if (again) return
    const fire = () => {
      session?.interrupt()
      again = setTimeout(fire, 100)
    }
    fire()
  }
  signal.addEventListener('abort', stop, { once: true })
  const timer = setTimeout(() => {
    timedOut = true
    stop()
  }, limits.timeLimitMs)
  try {
    session = await ctx.warehouse.session(scope.appKey, scope.timeZone)
    if (signal.aborted || timedOut) throw engineUnavailable('the query was stopped')
    const conn = session
    const tables = await queryScope(ctx, conn, scope.appKey)
    const checked = await checkSql(dialectOf(ctx, scope), conn, tables, request.sql)
    const rendered = renderQuery(dialectOf(ctx, scope), checked.sql, checked.columns, request.format ?? 'csv')
    // the text that really runs passes the same checks
    if ((await checkText(dialectOf(ctx, scope), conn, tables, rendered.sql)) !== rendered.sql) throw new Error('the rendered query changed under its check')
    const pieces = body(capped(linesOf(session, rendered.sql, rendered.values), limits.rows), checked.columns, request, endpoint)
    if (endpoint === 'query' && limits.rows !== null) {
      // held back until the row limit is known to hold
      const all: string[] = []
      for await (const piece of pieces) all.push(piece)
      yield all.join('')
    } else {
      yield* pieces
    }
  } catch (err) {
    if (timedOut) throw timeLimitReached(limits, endpoint)
    throw tooLargeToSend(err) ?? err
  } finally {
    clearTimeout(timer)
    clearTimeout(again)
    signal.removeEventListener('abort', stop)
    session?.close()
    release()
  }
}

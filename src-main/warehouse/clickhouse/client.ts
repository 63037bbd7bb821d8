import { randomUUID } from 'node:crypto'
import { ClickHouseError, EngineUnavailableError, parseError } from './errors'
import { bind, identifier, quoteString, type Literal } from './literal'
import { fromJson, fromTsv, toTsv, unescapeTsv, type Value } from './values'

/**
 * A small client for ClickHouse's HTTP interface, the one 18.16 and current versions both speak
 * (POST the SQL, answer in the named format). No settings are sent unless asked for, because a
 * readonly=1 profile refuses any setting in the request ("Cannot override setting").
 */
export interface ClickHouseConnection {
  /** http(s)://host:port, without credentials or a path. */
  url: string
  database?: string
  user?: string
  password?: string
}

export interface QueryOptions {
  /** Values for `{name:Type}` placeholders (printed as literals: 18.16 has no server-side parameters). */
  params?: Record<string, Literal>
  /** Sent as `query_id`, the handle for KILL QUERY; a fresh UUID when absent. */
  queryId?: string
  /** Aborting sends KILL QUERY; the query then ends with the server's "cancelled" error (code 394). */
  signal?: AbortSignal
  /** Client-side limit: the query is killed after this long and ends with code 159 (timeout). */
  timeoutMs?: number
  /** Per-query settings, e.g. {max_threads: 2}; refused by readonly=1 users. */
  settings?: Record<string, string | number>
  /**
   * Sent as `session_id`: the requests of one session share its temporary tables. The server
   * refuses a second request while one of the session's requests runs (the caller queues them).
   */
  sessionId?: string
}

export interface Column {
  name: string
  type: string
}

export interface QueryResult {
  columns: Column[]
  rows: Value[][]
}

/** How long a killed query may take to answer with its error before the request is dropped. */
const KILL_GRACE_MS = 5_000
const SETTING = /^[a-z_][a-z0-9_]*$/
const TSV_ERROR = /^Code: \d+[,.] (?:e\.displayText\(\) = )?DB::Exception: /

export class ClickHouseClient {
  readonly url: string
  readonly database: string | undefined
  readonly user: string | undefined
  // private (#) so that neither inspection nor JSON.stringify of the client shows it
  readonly #password: string | undefined
  #serverZone: Promise<string> | undefined

  constructor(connection: ClickHouseConnection) {
    const url = new URL(connection.url)
    if (!/^https?:$/.test(url.protocol)) throw new RangeError('the ClickHouse URL must start with http:// or https://')
    if (url.username || url.password || url.search || url.hash || url.pathname !== '/') {
      throw new RangeError('the ClickHouse URL takes only a scheme, host and port (credentials go in user and password)')
    }
    this.url = url.origin
    this.database = connection.database
    this.user = connection.user
    this.#password = connection.password
  }

  /** Runs a statement that returns rows and reads them all (JSONCompact). */
  async query(sql: string, options: QueryOptions = {}): Promise<QueryResult> {
    const { text, queryId } = await this.#send(bindIf(sql, options.params), 'JSONCompact', options, async (res) => res.text())
    if (text === '') return { columns: [], rows: [] } // a statement without a result
    let parsed: { meta: Column[]; data: unknown[][] }
    try {
      parsed = JSON.parse(text)
    } catch {
      throw parseError(text, queryId, true) ?? new ClickHouseError(0, `unreadable answer: ${text.slice(-200)}`, queryId)
    }
    const zone = parsed.meta.some((c) => c.type.includes('DateTime')) ? await this.serverZone() : 'UTC'
    const rows = parsed.data.map((row) => row.map((v, i) => fromJson(v, parsed.meta[i].type, zone)))
    return { columns: parsed.meta.map(({ name, type }) => ({ name, type })), rows }
  }

  /** Runs a statement without rows (DDL, KILL, OPTIMIZE ...). */
  async command(sql: string, options: QueryOptions = {}): Promise<void> {
    await this.#send(bindIf(sql, options.params), 'TabSeparated', options, async (res) => res.text())
  }

  /**
   * Reads a large result in pieces as they arrive (TabSeparatedWithNamesAndTypes); the first piece
   * carries the columns even when there are no rows. Reading waits while two pieces are unread;
   * leaving the loop early kills the query.
   */
  async *stream(sql: string, options: QueryOptions = {}): AsyncGenerator<QueryResult> {
    const zone = await this.serverZone()
    const pieces: QueryResult[] = []
    let wakeReader: (() => void) | undefined
    let wakeConsumer: (() => void) | undefined
    let done = false
    let failure: unknown
    const leave = new AbortController()
    const signal = options.signal ? AbortSignal.any([options.signal, leave.signal]) : leave.signal
    const emit = async (piece: QueryResult) => {
      pieces.push(piece)
      wakeConsumer?.()
      while (pieces.length >= 2 && !leave.signal.aborted) await new Promise<void>((r) => (wakeReader = r))
    }
    const running = this.#send(bindIf(sql, options.params), 'TabSeparatedWithNamesAndTypes', { ...options, signal }, (res, queryId) => readTsv(res, queryId, zone, emit))
    running.then(
      () => (done = true),
      (e: unknown) => ((failure = e), (done = true)),
    ).finally(() => wakeConsumer?.())
    try {
      for (;;) {
        while (pieces.length) {
          const piece = pieces.shift()!
          wakeReader?.()
          yield piece
        }
        if (done) break
        await new Promise<void>((r) => (wakeConsumer = r))
      }
      if (failure) throw failure
    } finally {
      if (!done) {
        leave.abort()
        wakeReader?.()
        await running.catch(() => undefined)
      }
    }
  }

  /**
   * Streams rows into `table` as TabSeparated. One HTTP request; ClickHouse commits it in blocks of
   * max_insert_block_size rows (1,048,576), so an error past the first block leaves earlier blocks
   * in place: write into a staging table and swap it in when all-or-nothing matters.
   */
  async insert(table: string, columns: readonly string[], rows: Iterable<readonly (Literal | Date)[]> | AsyncIterable<readonly (Literal | Date)[]>, options: QueryOptions = {}): Promise<number> {
    const target = table.split('.').map(identifier).join('.')
    return this.insertInto(`${target} (${columns.map(identifier).join(', ')})`, columns.length, rows, options)
  }

  /**
   * The same as `insert` into a target written as SQL by the caller (a quoted table name, with or
   * without a column list), `width` values per row.
   */
  async insertInto(target: string, width: number, rows: Iterable<readonly (Literal | Date)[]> | AsyncIterable<readonly (Literal | Date)[]>, options: QueryOptions = {}): Promise<number> {
    async function* lines(): AsyncGenerator<string> {
      let count = 0
      for await (const row of rows) {
        if (row.length !== width) throw new RangeError(`row ${count + 1} has ${row.length} values for ${width} columns`)
        count++
        yield row.map(toTsv).join('\t') + '\n'
      }
    }
    return this.insertLines(target, lines(), options)
  }

  /**
   * The same as `insertInto` with each row already written as a TabSeparated line (ending in a
   * newline) by the caller, which knows its columns' types (the executor's fast path).
   */
  async insertLines(target: string, lines: AsyncIterable<string> | Iterable<string>, options: QueryOptions = {}): Promise<number> {
    const sql = `INSERT INTO ${target} FORMAT TabSeparated`
    const iterator = Symbol.asyncIterator in lines ? lines[Symbol.asyncIterator]() : (lines as Iterable<string>)[Symbol.iterator]()
    const encoder = new TextEncoder()
    let count = 0
    let badRow: Error | undefined
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let text = ''
        try {
          while (text.length < 256 * 1024) {
            const next = await iterator.next()
            if (next.done) break
            text += next.value
            count++
          }
        } catch (e) {
          badRow = e as Error
          controller.error(badRow)
          return
        }
        if (text) controller.enqueue(encoder.encode(text))
        else controller.close()
      },
    })
    try {
      await this.#send(null, 'TabSeparated', { ...options, insert: { sql, body } }, async (res) => res.text())
    } catch (e) {
      throw badRow ?? e
    }
    return count
  }

  /**
   * Runs a query and reads its whole answer as bytes in `format` (e.g. RowBinary, which 18.16 writes
   * without names or types). The server holds the answer until the query ends
   * (`wait_end_of_query`), so a failure part-way is an HTTP error, never bytes cut by an error text.
   */
  async bytes(sql: string, format: string, options: QueryOptions = {}): Promise<Uint8Array> {
    const settings = { ...options.settings, wait_end_of_query: 1 }
    const { text } = await this.#send(bindIf(sql, options.params), format, { ...options, settings }, async (res) => new Uint8Array(await res.arrayBuffer()))
    return text
  }

  /** Asks the server to stop a query; true when a query with that id was running. */
  async kill(queryId: string): Promise<boolean> {
    const { text } = await this.#send(`KILL QUERY WHERE query_id = ${quoteString(queryId)}`, 'TabSeparated', { answerWithinMs: KILL_GRACE_MS }, async (res) => res.text())
    return text.trim() !== ''
  }

  /** Resolves when the server answers /ping; EngineUnavailableError otherwise. */
  async ping(): Promise<void> {
    let res: Response
    try {
      res = await this.#fetch(`${this.url}/ping`, { signal: AbortSignal.timeout(5_000) })
    } catch (e) {
      if (e instanceof EngineUnavailableError) throw e
      throw new EngineUnavailableError(this.url, 'no answer to /ping within 5 s')
    }
    if (!res.ok || !(await res.text()).startsWith('Ok')) throw new EngineUnavailableError(this.url, `/ping answered HTTP ${res.status}, not ClickHouse's Ok.`)
  }

  /** The zone DateTime columns without their own are shown in. */
  serverZone(): Promise<string> {
    this.#serverZone ??= this.query('SELECT timezone()').then((r) => String(r.rows[0][0]))
    this.#serverZone.catch(() => (this.#serverZone = undefined))
    return this.#serverZone
  }

  async #fetch(url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, init)
    } catch (e) {
      if ((e as Error).name === 'AbortError' || (e as Error).name === 'TimeoutError') throw e
      const cause = (e as { cause?: { code?: string; message?: string } }).cause
      throw new EngineUnavailableError(this.url, cause?.code ?? cause?.message ?? (e as Error).message)
    }
  }

  async #send<T>(sql: string | null, format: string, options: QueryOptions & { insert?: { sql: string; body: ReadableStream<Uint8Array> }; answerWithinMs?: number }, read: (res: Response, queryId: string) => Promise<T>): Promise<{ text: T; queryId: string }> {
    const queryId = options.queryId ?? randomUUID()
    const search = new URLSearchParams({ query_id: queryId, default_format: format })
    if (this.database) search.set('database', this.database)
    if (options.sessionId) search.set('session_id', options.sessionId)
    if (options.insert) search.set('query', options.insert.sql)
    for (const [name, value] of Object.entries(options.settings ?? {})) {
      if (!SETTING.test(name)) throw new RangeError(`not a setting name: ${name}`)
      search.set(name, String(value))
    }
    const headers: Record<string, string> = {}
    if (this.user !== undefined) headers['X-ClickHouse-User'] = this.user
    if (this.#password) headers['X-ClickHouse-Key'] = this.#password
    if (options.signal?.aborted) throw new ClickHouseError(394, 'Query was cancelled before it started', queryId)
    const hardStop = new AbortController()
    let timedOut = false
    let killing: Promise<unknown> | undefined
    let settled = false
    // a stop that comes before the server lists the query finds nothing to kill: asked again until it does or the request ends
    const killUntilFound = async () => {
      const until = Date.now() + KILL_GRACE_MS
      while (!(await this.kill(queryId).catch(() => false)) && !settled && Date.now() < until) await new Promise((r) => setTimeout(r, 25))
    }
    const stop = () => {
      killing ??= killUntilFound()
      setTimeout(() => hardStop.abort(), KILL_GRACE_MS).unref()
    }
    const timer = options.timeoutMs ? setTimeout(() => ((timedOut = true), stop()), options.timeoutMs) : undefined
    // a bounded request (KILL QUERY itself) is dropped when the server does not answer in time
    const deadline = options.answerWithinMs ? setTimeout(() => hardStop.abort(), options.answerWithinMs) : undefined
    options.signal?.addEventListener('abort', stop, { once: true })
    try {
      const init: RequestInit & { duplex?: 'half' } = { method: 'POST', headers, body: options.insert?.body ?? sql ?? '', signal: hardStop.signal }
      if (options.insert) init.duplex = 'half'
      const res = await this.#fetch(`${this.url}/?${search}`, init)
      if (!res.ok) {
        const text = await res.text()
        throw parseError(text, queryId) ?? new EngineUnavailableError(this.url, `HTTP ${res.status} without a ClickHouse error`)
      }
      return { text: await read(res, queryId), queryId }
    } catch (e) {
      if (timedOut && (e instanceof ClickHouseError ? e.code === 394 : hardStop.signal.aborted)) {
        throw new ClickHouseError(159, `Timeout exceeded: the query ran longer than ${options.timeoutMs} ms and was killed`, queryId)
      }
      if (hardStop.signal.aborted && !(e instanceof ClickHouseError)) {
        if (options.answerWithinMs) throw new EngineUnavailableError(this.url, `no answer within ${options.answerWithinMs} ms`)
        throw new ClickHouseError(394, 'Query was cancelled (the server did not answer after KILL QUERY)', queryId)
      }
      const lost = lostConnection(e)
      if (lost) throw new EngineUnavailableError(this.url, lost)
      throw e
    } finally {
      settled = true
      clearTimeout(timer)
      clearTimeout(deadline)
      options.signal?.removeEventListener('abort', stop)
      await killing
    }
  }
}

/** Why the connection was lost while an answer was read (fetch's TypeError "terminated", caused by the socket); null for any other error. */
function lostConnection(e: unknown): string | null {
  if (!(e instanceof TypeError) || !e.message.startsWith('terminated')) return null
  const cause = (e as { cause?: { code?: string; message?: string } }).cause
  return `the connection was lost during the answer (${cause?.code ?? cause?.message ?? e.message})`
}

function bindIf(sql: string, params: Record<string, Literal> | undefined): string {
  return params ? bind(sql, params) : sql
}

/** Reads TabSeparatedWithNamesAndTypes line by line; an error appended after rows is thrown typed. */
async function readTsv(res: Response, queryId: string, zone: string, emit: (piece: QueryResult) => Promise<void>): Promise<void> {
  const decoder = new TextDecoder()
  const reader = res.body!.getReader()
  const header: string[][] = []
  let columns: Column[] | undefined
  let announced = false
  let buffer = ''
  let errorText: string | undefined
  for (;;) {
    const { done, value } = await reader.read()
    buffer += done ? decoder.decode() : decoder.decode(value, { stream: true })
    if (errorText !== undefined) {
      errorText += buffer
      buffer = ''
    } else {
      const lines = buffer.split('\n')
      buffer = done ? '' : lines.pop()!
      const rows: Value[][] = []
      for (const [index, line] of lines.entries()) {
        if (TSV_ERROR.test(line)) {
          errorText = lines.slice(index).join('\n') + buffer
          buffer = ''
          break
        }
        if (line === '' && index === lines.length - 1 && done) continue
        const fields = line.split('\t')
        if (!columns) {
          header.push(fields)
          if (header.length === 2) columns = header[0].map((name, i) => ({ name: unescapeTsv(name), type: unescapeTsv(header[1][i]) }))
          continue
        }
        if (fields.length !== columns.length) throw new ClickHouseError(0, `unreadable row: ${line.slice(0, 200)}`, queryId)
        rows.push(fields.map((f, i) => fromTsv(f, columns![i].type, zone)))
      }
      if (columns && (rows.length || !announced)) {
        announced = true
        await emit({ columns, rows })
      }
    }
    if (done) break
  }
  if (errorText !== undefined) throw parseError(errorText, queryId) ?? new ClickHouseError(0, errorText, queryId)
}

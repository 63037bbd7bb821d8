import { closeSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { DuckDBInstance } from '@duckdb/node-api'
import * as XLSX from 'xlsx'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fixture, footprint, importAndWait, newProject, warehouseRows } from '../helpers/ingest'
import { eventually, startTestServer, type TestServer } from '../helpers/server'

let s: TestServer
let p: { appKey: string; token: string }

beforeAll(async () => {
  s = await startTestServer()
  p = await newProject(s, 'files', 'UTC')
})
afterAll(() => s.stop())

describe('Parquet', () => {
  it('reads typed columns as the plan types them', async () => {
    const file = fixture('orders.parquet', '')
    const db = await DuckDBInstance.create(':memory:')
    const conn = await db.connect()
    await conn.run(`COPY (SELECT * FROM (VALUES ('q1', 'order', TIMESTAMP '2024-05-01 10:00:00', 19.5::DOUBLE, true, ['x', 'y']),
                                              ('q2', 'order', TIMESTAMP '2024-05-02 11:30:00', 5::DOUBLE, false, NULL::VARCHAR[]))
                    t(customer, action, ts, amount, gift, labels)) TO '${file}' (FORMAT parquet)`)
    conn.closeSync()
    db.closeSync()
    const job = await importAndWait(s, p, { path: file, mapping: { xwho: 'customer', xwhat: 'action', xwhen: 'ts' } })
    expect(job).toMatchObject({ state: 'succeeded', format: 'parquet', rowsWritten: 2 })
    expect(await warehouseRows(s, 'files', "SELECT xwho, epoch_ms(xwhen) AS ms, amount, gift, labels FROM event_vd WHERE xwhat = 'order' ORDER BY xwho")).toEqual([
      { xwho: 'q1', ms: Date.UTC(2024, 4, 1, 10), amount: 19.5, gift: true, labels: ['x', 'y'] },
      { xwho: 'q2', ms: Date.UTC(2024, 4, 2, 11, 30), amount: 5, gift: false, labels: null },
    ])
  })
})

describe('Excel', () => {
  function workbook(): Buffer {
    const ws = XLSX.utils.aoa_to_sheet([
      ['user', 'event', 'time', 'qty', 'unit price', 'total', 'note'],
      ['e1', 'buy', new Date(2024, 5, 1, 9, 15, 0), 2, 2.5, null, 'spring sale'],
      ['e2', 'buy', new Date(2024, 5, 2, 18, 0, 0), 3, 10, null, null],
    ], { cellDates: true })
    // formulas with their cached results, and a note merged over both rows
    ws.F2 = { t: 'n', f: 'D2*E2', v: 5 }
    ws.F3 = { t: 'n', f: 'D3*E3', v: 30 }
    ws['!merges'] = [XLSX.utils.decode_range('G2:G3')]
    const book = XLSX.utils.book_new()
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['ignored'], ['x']]), 'Cover')
    XLSX.utils.book_append_sheet(book, ws, 'Orders')
    return XLSX.write(book, { type: 'buffer', bookType: 'xlsx', cellDates: true })
  }

  it('reads the chosen sheet: formula results, the merged value in its first cell, dates as wall-clock time', async () => {
    const job = await importAndWait(s, p, { path: fixture('orders.xlsx', workbook()), sheet: 'Orders', mapping: { xwho: 'user', xwhat: 'event', xwhen: 'time' } })
    expect(job).toMatchObject({ state: 'succeeded', format: 'excel', rowsWritten: 2 })
    expect(await warehouseRows(s, 'files', `SELECT xwho, strftime(xwhen, '%Y-%m-%d %H:%M:%S') AS at, qty, unit_price, total, note FROM event_vd WHERE xwhat = 'buy' ORDER BY xwho`)).toEqual([
      { xwho: 'e1', at: '2024-06-01 09:15:00', qty: 2, unit_price: 2.5, total: 5, note: 'spring sale' },
      { xwho: 'e2', at: '2024-06-02 18:00:00', qty: 3, unit_price: 10, total: 30, note: null },
    ])
  })

  it('names the sheets when the chosen one does not exist', async () => {
    const res = await s.call('POST', '/uba/api/import/preview', { headers: p, body: { path: fixture('orders.xlsx', workbook()), sheet: 'Nope' } })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg: 'the workbook has no sheet named Nope; it has Cover, Orders', data: ['sheet'] })
  })

  it('refuses a file that is not a workbook', async () => {
    const job = await importAndWait(s, p, { path: fixture('fake.xlsx', Buffer.from('PK\u0003\u0004 definitely not a zip')), mapping: { xwho: 'a', xwhat: 'b', xwhen: 'c' } })
    expect(job).toMatchObject({ state: 'failed', error: 'the file is not a readable Excel workbook' })
  })
})

describe('profile tables', () => {
  it('sets one profile per row, later rows winning, with the same distinct_id as the user\'s events', async () => {
    await importAndWait(s, p, { path: fixture('ev.csv', 'u,e,t\npt1,open,2024-01-01\n'), mapping: { xwho: 'u', xwhat: 'e', xwhen: 't' } })
    const job = await importAndWait(s, p, { path: fixture('people.csv', 'id,plan,seats\npt1,free,1\npt2,pro,5\npt1,team,3\n'), kind: 'profiles', mapping: { xwho: 'id' } })
    expect(job).toMatchObject({ state: 'succeeded', kind: 'profiles', rowsRead: 3 })
    expect(await warehouseRows(s, 'files', "SELECT xwho, plan, seats FROM profile_vd WHERE xwho LIKE 'pt%' ORDER BY xwho")).toEqual([
      { xwho: 'pt1', plan: 'team', seats: 3 },
      { xwho: 'pt2', plan: 'pro', seats: 5 },
    ])
    const same = await warehouseRows(s, 'files', "SELECT count(*) AS n FROM profile_vd p JOIN event_vd e USING (xwho, distinct_id) WHERE xwho = 'pt1'")
    expect(same).toEqual([{ n: 1 }])
  })
})

describe('uploads, preview and requests', () => {
  it('imports a multipart upload and reports the original file name', async () => {
    const form = new FormData()
    form.append('file', new Blob(['who,what,when\nm1,tap,2024-02-02 02:02:02\n']), 'taps.csv')
    form.append('mapping', JSON.stringify({ xwho: 'who', xwhat: 'what', xwhen: 'when' }))
    const res = await fetch(`${s.url}/uba/api/import/jobs`, { method: 'POST', headers: p, body: form })
    expect(res.status).toBe(200)
    const started = (await res.json()) as any
    expect(started.source).toBe('taps.csv')
    await eventually(async () => (await s.call('GET', `/uba/api/import/jobs/${started.id}`, { headers: p })).body.state === 'succeeded')
    expect(await warehouseRows(s, 'files', "SELECT xwho FROM event_vd WHERE xwhat = 'tap'")).toEqual([{ xwho: 'm1' }])
  })

  it('previews the first records as they would be stored, guesses the mapping, and writes nothing', async () => {
    const before = await footprint(s, 'files')
    const file = fixture('guess.csv', 'user_id,event_name,timestamp,Fee ($)\nv1,checkout,2024-07-01 08:00:00,12\nv2,checkout,2024-07-01 09:00:00,oops\n')
    const res = await s.call('POST', '/uba/api/import/preview', { headers: p, body: { path: file } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      format: 'csv',
      kind: 'events',
      header: ['user_id', 'event_name', 'timestamp', 'Fee ($)'],
      mapping: { xwho: 'user_id', xwhat: 'event_name', xwhen: 'timestamp' },
      mappingProblem: null,
      properties: [{ property: 'fee', type: 'string', known: false, target: 'event' }],
      rowsChecked: 2,
      rowsRejected: 0,
    })
    expect(res.body.rows[0]).toEqual({ row: 1, xwho: 'v1', xwhat: 'checkout', xwhen: '2024-07-01 08:00:00.000', ds: 20240701, properties: { fee: '12' }, problem: null })
    // a type chosen in the mapping shows its problems before anything is imported
    const typed = await s.call('POST', '/uba/api/import/preview', { headers: p, body: { path: file, mapping: { xwho: 'user_id', xwhat: 'event_name', xwhen: 'timestamp', types: { fee: 'number' } } } })
    expect(typed.body.problems).toEqual([{ row: 2, property: 'fee', value: 'oops', reason: 'is not a number' }])
    expect(await footprint(s, 'files')).toEqual(before)
  })

  it('says what the mapping lacks instead of failing the preview', async () => {
    const res = await s.call('POST', '/uba/api/import/preview', { headers: p, body: { path: fixture('odd.csv', 'a,b\n1,2\n') } })
    expect(res.status).toBe(200)
    expect(res.body.header).toEqual(['a', 'b'])
    expect(res.body.mappingProblem).toBe('mapping.xwho must name the column that holds the user id')
  })

  it.each([
    [{}, ['path'], 'path is required'],
    [{ path: 'relative.csv' }, ['path'], 'path must be an absolute path'],
    // a missing file where imports may read (elsewhere the folder itself is refused: import-roots.test.ts)
    [{ path: join(tmpdir(), 'no/such/file.csv') }, ['path'], `no file at ${join(tmpdir(), 'no/such/file.csv')}`],
    [{ path: '/tmp' }, ['path'], '/tmp is not a file'],
    [{ path: 'FILE', format: 'xml' }, ['format'], null],
    [{ path: 'FILE', kind: 'people' }, ['kind'], null],
    [{ path: 'FILE', onError: 'ignore' }, ['onError'], null],
    [{ path: 'FILE', dedupe: 'yes' }, ['dedupe'], null],
    [{ path: 'FILE', mapping: { who: 'a' } }, ['mapping.who'], null],
    [{ path: 'FILE', mapping: { xwho: 'nope', xwhat: 'e', xwhen: 't' } }, ['mapping.xwho'], 'the file has no column nope; it has u, e, t'],
    [{ path: 'FILE', mapping: { xwho: 'u', xwhen: 't' } }, ['mapping.xwhat'], 'give either mapping.xwhat (a column holding the event id) or mapping.event (one event id for every row)'],
    [{ path: 'FILE', mapping: { xwho: 'u', xwhat: 'e', xwhen: 't', types: { e2: 'money' } } }, ['mapping.types.e2'], null],
  ])('answers %j with 400 naming %j', async (body, data, msg) => {
    const file = fixture('req.csv', 'u,e,t\na,b,2024-01-01\n')
    const payload = { ...body, ...((body as { path?: string }).path === 'FILE' ? { path: file } : {}) }
    const started = await s.call('POST', '/uba/api/import/jobs', { headers: p, body: payload })
    // mapping errors are found when the header is read: the preview answers them at once
    const res = started.status === 200 ? await s.call('POST', '/uba/api/import/preview', { headers: p, body: payload }) : started
    if (started.status === 200) {
      expect(res.body.mappingProblem).toBe(msg)
      return
    }
    expect(res.status).toBe(400)
    expect(res.body.data).toEqual(data)
    if (msg) expect(res.body.msg).toBe(msg)
  })

  it('answers 400 for an unknown job, and for cancelling a finished one', async () => {
    const unknown = await s.call('GET', '/uba/api/import/jobs/nope', { headers: p })
    expect(unknown.body).toEqual({ code: 400, msg: 'import job nope does not exist in this project', data: ['id'] })
    const done = await importAndWait(s, p, { path: fixture('x.csv', 'u,e,t\na,b,2024-01-01\n'), mapping: { xwho: 'u', xwhat: 'e', xwhen: 't' } })
    const cancel = await s.call('DELETE', `/uba/api/import/jobs/${done.id}`, { headers: p })
    expect(cancel.body).toEqual({ code: 400, msg: `import job ${done.id} has already succeeded`, data: ['id'] })
    const other = await s.call('GET', `/uba/api/import/jobs/${done.id}`, { headers: s.project })
    expect(other.status).toBe(400)
  })

  it('lists recent jobs, newest first', async () => {
    const list = await s.call('GET', '/uba/api/import/jobs', { headers: p })
    expect(list.status).toBe(200)
    expect(list.body.length).toBeGreaterThan(3)
    expect(list.body[0].createTime).toBeGreaterThanOrEqual(list.body[1].createTime)
  })
})

describe('CSV dialects and encodings', () => {
  const mapping = { xwho: 'user', xwhat: 'event', xwhen: 'time' }
  const stored = (event: string, columns = 'city') => warehouseRows(s, 'files', `SELECT xwho, strftime(xwhen, '%Y-%m-%d %H:%M') AS at, ${columns} FROM event_vd WHERE xwhat = '${event}' ORDER BY xwho`)

  it('reads a spreadsheet\'s semicolon CSV (byte order mark, CRLF, commas in cells) by the separator its header shows, gzip too', async () => {
    const csv = '\uFEFFuser;event;time;city;price\r\nd1;semi;2024-04-01 08:00:00;"Rome, Lazio";1,5\r\nd2;semi;2024-04-01 09:30:00;Oslo;2\r\n'
    const preview = await s.call('POST', '/uba/api/import/preview', { headers: p, body: { path: fixture('semi.csv', csv) } })
    expect(preview.status).toBe(200)
    expect(preview.body).toMatchObject({ format: 'csv', delimiter: ';', header: ['user', 'event', 'time', 'city', 'price'], mapping, mappingProblem: null })
    // a decimal comma is not a number: the column is text, as written
    expect(preview.body.properties).toEqual([
      { property: 'city', type: 'string', known: false, target: 'event' },
      { property: 'price', type: 'string', known: false, target: 'event' },
    ])
    const job = await importAndWait(s, p, { path: fixture('semi.csv.gz', gzipSync(csv)), mapping })
    expect(job).toMatchObject({ state: 'succeeded', rowsWritten: 2 })
    expect(await stored('semi', 'city, price')).toEqual([
      { xwho: 'd1', at: '2024-04-01 08:00', city: 'Rome, Lazio', price: '1,5' },
      { xwho: 'd2', at: '2024-04-01 09:30', city: 'Oslo', price: '2' },
    ])
  })

  it('reads numbers with a decimal comma when asked to, and holds a number written with a point to be no number there', async () => {
    const csv = 'user;event;time;cost;qty\nm1;comma;2024-04-01 08:00:00;1,5;3\nm2;comma;2024-04-01 09:00:00;-0,25;1500\nm3;comma;2024-04-01 10:00:00;2;\nm4;comma;2024-04-01 11:00:00;1.500;2\n'
    const file = fixture('comma.csv', csv)
    // a value written with a point makes the column text on first sight
    const guessed = await s.call('POST', '/uba/api/import/preview', { headers: p, body: { path: file, decimal: ',' } })
    expect(guessed.body).toMatchObject({ delimiter: ';', decimal: ',', rowsChecked: 4, rowsRejected: 0 })
    expect(guessed.body.properties.map((q: { property: string; type: string }) => `${q.property} ${q.type}`)).toEqual(['cost string', 'qty number'])
    // held to be a number, it rejects its record
    const typed = { ...mapping, types: { cost: 'number' } }
    const preview = await s.call('POST', '/uba/api/import/preview', { headers: p, body: { path: file, decimal: ',', mapping: typed } })
    expect(preview.body).toMatchObject({ rowsChecked: 4, rowsRejected: 1 })
    expect(preview.body.problems).toEqual([{ row: 4, property: 'cost', value: '1.500', reason: expect.stringContaining('number') }])
    expect(preview.body.rows.map((r: { properties: Record<string, unknown> }) => r.properties.cost)).toEqual([1.5, -0.25, 2, undefined])
    const job = await importAndWait(s, p, { path: file, decimal: ',', onError: 'skip', mapping: typed })
    expect(job).toMatchObject({ state: 'succeeded', rowsWritten: 3, rowsRejected: 1 })
    expect(await warehouseRows(s, 'files', "SELECT xwho, cost, qty FROM event_vd WHERE xwhat = 'comma' ORDER BY xwho")).toEqual([
      { xwho: 'm1', cost: 1.5, qty: 3 },
      { xwho: 'm2', cost: -0.25, qty: 1500 },
      { xwho: 'm3', cost: 2, qty: null },
    ])
    // without the option the same column is text, as written
    const plain = await s.call('POST', '/uba/api/import/preview', { headers: p, body: { path: fixture('comma2.csv', csv.replace(/cost/, 'charge')) } })
    expect(plain.body).toMatchObject({ decimal: '.', rowsRejected: 0 })
    expect(plain.body.properties.find((q: { property: string }) => q.property === 'charge').type).toBe('string')

    for (const [body, msg] of [
      [{ decimal: ';' }, /^decimal must be one of \., ,$/],
      [{ decimal: ',', format: 'json' }, /^decimal applies to csv and tsv files, not json$/],
    ] as const) {
      const res = await s.call('POST', '/uba/api/import/preview', { headers: p, body: { path: file, ...body } })
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ code: 400, data: ['decimal'] })
      expect(res.body.msg).toMatch(msg)
    }
  })

  it('takes the separator asked for, by character or name, and refuses others with 400 naming delimiter', async () => {
    const csv = 'user|event|time|city\np1|piped|2024-04-02 10:00:00|Lima;Peru\n'
    const job = await importAndWait(s, p, { path: fixture('piped.txt', csv), delimiter: 'pipe', mapping })
    expect(job).toMatchObject({ state: 'succeeded', format: 'csv', rowsWritten: 1 })
    expect((await stored('piped'))[0]).toMatchObject({ xwho: 'p1', city: 'Lima;Peru' })
    // the header alone says pipe as well
    const detected = await s.call('POST', '/uba/api/import/preview', { headers: p, body: { path: fixture('piped.csv', csv) } })
    expect(detected.body.delimiter).toBe('|')
    const tsv = await s.call('POST', '/uba/api/import/preview', { headers: p, body: { path: fixture('t.tsv', 'user\tevent\ttime\nt1\ttabbed\t2024-04-02\n') } })
    expect(tsv.body).toMatchObject({ format: 'tsv', delimiter: '\t', mapping })

    for (const [body, msg] of [
      [{ delimiter: 'colon' }, /^delimiter must be one of/],
      [{ delimiter: 'constructor' }, /^delimiter must be one of/],
      [{ delimiter: 5 }, /^delimiter must be string$/],
      [{ delimiter: ';', format: 'json' }, /^delimiter applies to csv and tsv files, not json$/],
    ] as const) {
      const res = await s.call('POST', '/uba/api/import/preview', { headers: p, body: { path: fixture('piped.csv', csv), ...body } })
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ code: 400, data: ['delimiter'] })
      expect(res.body.msg).toMatch(msg)
      const started = await s.call('POST', '/uba/api/import/jobs', { headers: p, body: { path: fixture('piped.csv', csv), ...body } })
      expect(started.status).toBe(400)
      expect(started.body.data).toEqual(['delimiter'])
    }
  })

  it('names the properties of accented headers by their letters without the accents', async () => {
    const csv = 'user,event,time,Größe,Café crème,Ærø,Łódź,城市\nh1,accents,2024-04-06,L,2,x,y,z\n'
    const res = await s.call('POST', '/uba/api/import/preview', { headers: p, body: { path: fixture('accents.csv', csv) } })
    expect(res.body.properties.map((q: { property: string }) => q.property)).toEqual(['grosse', 'cafe_creme', 'aero', 'lodz', 'column'])
  })

  it('reads Latin-1 text and UTF-16 with its byte order mark as the letters they are', async () => {
    const latin = Buffer.from('user,event,time,city\nl1,latin,2024-04-03 11:00:00,Köln\nl2,latin,2024-04-03 12:00:00,Gävle\n', 'latin1')
    expect(await importAndWait(s, p, { path: fixture('latin.csv', latin), mapping })).toMatchObject({ state: 'succeeded', rowsWritten: 2 })
    expect((await stored('latin')).map((r) => r.city)).toEqual(['Köln', 'Gävle'])
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('user\tevent\ttime\tcity\nw1\twide\t2024-04-03 13:00:00\tZürich\n', 'utf16le')])
    expect(await importAndWait(s, p, { path: fixture('unicode.tsv', utf16), mapping })).toMatchObject({ state: 'succeeded', rowsWritten: 1 })
    expect((await stored('wide')).map((r) => r.city)).toEqual(['Zürich'])
  })

  it('refuses a file whose lines do not all have the header\'s cells, or whose text stops being UTF-8, naming the line; nothing is written', async () => {
    const before = await footprint(s, 'files')
    const short = fixture('short.csv', 'user,event,time\nr1,ragged,2024-04-04\nr2,ragged\nr3,ragged,2024-04-04\n')
    const preview = await s.call('POST', '/uba/api/import/preview', { headers: p, body: { path: short } })
    expect(preview.status).toBe(400)
    const shortMsg = 'line 3 has 2 cells where the header has 3 ("r2,ragged"): every line needs one cell per column of the header. The cells were split at \',\'; if the file uses another separator, choose it (delimiter)'
    expect(preview.body).toEqual({ code: 400, msg: shortMsg, data: ['file'] })
    expect(await importAndWait(s, p, { path: short, onError: 'skip' })).toMatchObject({ state: 'failed', rowsWritten: 0, error: shortMsg })

    // far down the file, past what the reader samples first
    const lines = ['user,event,time']
    for (let i = 0; i < 30_000; i++) lines.push(`r${i},ragged,2024-04-04`)
    lines[25_000] = 'r9,ragged,2024-04-04,extra'
    const late = await importAndWait(s, p, { path: fixture('late.csv', `${lines.join('\n')}\n`), onError: 'skip' })
    expect(late).toMatchObject({ state: 'failed', rowsWritten: 0 })
    expect(late.error).toMatch(/^line 25001 has 4 cells where the header has 3 \("r9,ragged,2024-04-04,extra"\)/)
    lines[25_000] = 'r9,ragged,2024-04-04'
    const notUtf8 = Buffer.concat([Buffer.from(`${lines.join('\n')}\n`), Buffer.from('r10,ragged,2024-04-04 ', 'utf8'), Buffer.from([0xe9]), Buffer.from('\n')])
    const broken = await importAndWait(s, p, { path: fixture('late8.csv', notUtf8), onError: 'skip' })
    expect(broken).toMatchObject({ state: 'failed', rowsWritten: 0 })
    expect(broken.error).toMatch(/^line 30002 is not UTF-8 text \(.*\): save the file as UTF-8$/)
    expect(await footprint(s, 'files')).toEqual(before)
  })

  it('says a CSV file without even a header is empty, and finds the header under blank lines', async () => {
    for (const content of ['', '\n\n  \n']) {
      const res = await s.call('POST', '/uba/api/import/preview', { headers: p, body: { path: fixture('empty.csv', content) } })
      expect(res.body).toEqual({ code: 400, msg: 'the file is empty: a CSV or TSV file starts with its header line', data: ['file'] })
    }
    const res = await s.call('POST', '/uba/api/import/preview', { headers: p, body: { path: fixture('late header.csv', '\n\nuser;event;time\nb1;late;2024-04-05\n') } })
    expect(res.body).toMatchObject({ delimiter: ';', header: ['user', 'event', 'time'], mapping, rowsChecked: 1, rowsRejected: 0 })
  })

  it('answers 400 naming file, in DuckDB\'s words, for a file its reader refuses', async () => {
    const file = fixture('broken.parquet', 'this is not parquet')
    const res = await s.call('POST', '/uba/api/import/preview', { headers: p, body: { path: file } })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, msg: `the file could not be read as Parquet: No magic bytes found at end of file '${file}'`, data: ['file'] })
    expect(await importAndWait(s, p, { path: file })).toMatchObject({ state: 'failed', error: res.body.msg })

    // a real Parquet file with the middle of it gone: its footer points at pages that are not there
    const whole = fixture('whole.parquet', '')
    const db = await DuckDBInstance.create(':memory:')
    const conn = await db.connect()
    await conn.run(`COPY (SELECT 'u' || i AS customer, 'order' AS action, i * 1000 AS ts FROM range(100000) r(i)) TO '${whole}' (FORMAT parquet)`)
    conn.closeSync()
    db.closeSync()
    const bytes = readFileSync(whole)
    const cut = fixture('cut.parquet', Buffer.concat([bytes.subarray(0, bytes.length >> 1), bytes.subarray(bytes.length - 8)]))
    const broken = await s.call('POST', '/uba/api/import/preview', { headers: p, body: { path: cut } })
    expect(broken.status).toBe(400)
    expect(broken.body.data).toEqual(['file'])
    expect(broken.body.msg).toMatch(/^the file could not be read as Parquet: /)
  })
})

describe('broken files and cancellation', () => {
  it('fails a file with a 2 GB line at once, and writes nothing', async () => {
    const file = fixture('huge.jsonl', '')
    const fd = openSync(file, 'w')
    writeSync(fd, '{"xwho":"u1","xwhat":"view","xwhen":1704164645000}\n{"xwho":"')
    ftruncateSync(fd, 2 * 1024 ** 3) // sparse: no disk space, still a 2 GB line to read
    closeSync(fd)
    const before = await footprint(s, 'files')
    const job = await importAndWait(s, p, { path: file, onError: 'skip' })
    expect(job).toMatchObject({ state: 'failed', rowsWritten: 0 })
    expect(job.error).toBe('line 2 is longer than 8 MB, more than any record can be: this is not a JSON lines, CSV or TSV file the import can read')
    expect(await footprint(s, 'files')).toEqual(before)
  })

  it('refuses to preview a file whose first lines hold one longer than any record, as the import would', async () => {
    const long = `{"xwho":"u2","xwhat":"view","xwhen":1704164645000,"xcontext":{"note":"${'x'.repeat(9 * 1024 * 1024)}"}}`
    const file = fixture('long.jsonl', ['{"xwho":"u1","xwhat":"view","xwhen":1704164645000}', long, '{"xwho":"u3","xwhat":"view","xwhen":1704164645000}'].join('\n'))
    const res = await s.call('POST', '/uba/api/import/preview', { headers: p, body: { path: file } })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ code: 400, data: ['file'], msg: 'line 2 is longer than 8 MB, more than any record can be: this is not a JSON lines, CSV or TSV file the import can read' })
    const csv = fixture('long.csv', `u,e,t\nu1,view,1704164645\nu2,${'x'.repeat(9 * 1024 * 1024)},1704164645\n`)
    const tabular = await s.call('POST', '/uba/api/import/preview', { headers: p, body: { path: csv } })
    expect(tabular.status).toBe(400)
    expect(tabular.body.msg).toMatch(/^line 3 is longer than 8 MB/)
  })

  it('cancels a queued job before it starts and a running one mid-way, leaving nothing behind', async () => {
    const rows = Array.from({ length: 1_500_000 }, (_, i) => `c${i % 5000},load${i % 7},${1704067200 + i},${i},v${i % 13}`)
    const file = fixture('big.csv', `u,e,t,n,s\n${rows.join('\n')}\n`)
    const before = await footprint(s, 'files')
    const mapping = { xwho: 'u', xwhat: 'e', xwhen: 't' }
    const running = await s.call('POST', '/uba/api/import/jobs', { headers: p, body: { path: file, mapping } })
    const queued = await s.call('POST', '/uba/api/import/jobs', { headers: p, body: { path: file, mapping } })
    const cancelledQueued = await s.call('DELETE', `/uba/api/import/jobs/${queued.body.id}`, { headers: p })
    expect(cancelledQueued.body).toMatchObject({ state: 'cancelled', error: 'cancelled before it started' })
    await eventually(async () => (await s.call('GET', `/uba/api/import/jobs/${running.body.id}`, { headers: p })).body.state === 'running')
    await s.call('DELETE', `/uba/api/import/jobs/${running.body.id}`, { headers: p })
    await eventually(async () => (await s.call('GET', `/uba/api/import/jobs/${running.body.id}`, { headers: p })).body.state !== 'running', 30_000)
    const job = (await s.call('GET', `/uba/api/import/jobs/${running.body.id}`, { headers: p })).body
    expect(job).toMatchObject({ state: 'cancelled', error: 'cancelled; nothing was imported', rowsWritten: 0 })
    await s.app.ctx.background.idle()
    expect((await s.call('GET', `/uba/api/import/jobs/${queued.body.id}`, { headers: p })).body.state).toBe('cancelled')
    expect(await footprint(s, 'files')).toEqual(before)
    expect(readFileSync(file).length).toBeGreaterThan(0)
  })
})

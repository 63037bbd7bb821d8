import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'
import type { TestServer } from '../helpers/server'
import { loadPeople, setMasking, sh } from './people-fixture'

/** A user's timeline as CSV: the JSON lines export's events, in a file a spreadsheet opens. */

describe.each(ENGINES)('user behaviour sequence export as CSV, on %s', (engine) => {
  const host = useEngine(engine)
  let s: TestServer
  let p: Project

  beforeAll(async () => {
    ;({ s, p } = await loadPeople(host, 'pexportcsv'))
    await setMasking(s, p, 'plan_event_properties', 'coupon', 1)
    // a value with a comma and quotes, one with non-ASCII text, on a user of their own
    const more = [
      JSON.stringify({ xwho: 'u9', xwhat: 'view', xwhen: sh('2024-03-05 10:00'), xcontext: { $os: 'ios, "beta"', note: 'Zürich · 北京' } }),
      JSON.stringify({ xwho: 'u9', xwhat: 'view', xwhen: sh('2024-03-05 10:00') + 250, xcontext: { $os: 'web' } }),
    ]
    const job = await importAndWait(s, p, { path: fixture('more.jsonl', more.join('\n')) })
    expect(job.state).toBe('succeeded')
  })

  const post = (path: string, body: unknown) =>
    fetch(s.url + path, { method: 'POST', headers: { ...p, 'content-type': 'application/json' }, body: JSON.stringify(body) })

  /** The body as bytes decoded by hand: fetch's text() would drop a byte-order mark. */
  const bodyText = async (res: Response) => new TextDecoder('utf-8', { ignoreBOM: true }).decode(await res.arrayBuffer())

  const HEADER = 'xwhat,xwhen,$is_login,$os,coupon,n,paid_at,price,note\r\n'

  it('writes a header of every event property, then the events newest first, local times, the masked value masked', async () => {
    const res = await post('/uba/api/cohort/users/u1/sequence/export', { fromDate: '2024-03-01', toDate: '2024-03-03', format: 'csv' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(await bodyText(res)).toBe(
      HEADER +
        'view,2024-03-03 00:10:00,,android,,,,,\r\n' +
        'view,2024-03-02 23:30:00,,ios,,,,,\r\n' +
        'add,2024-03-01 12:00:00,,,,,,1,\r\n' +
        'buy,2024-03-01 12:00:00,,,******,,2024-03-01 12:00:05,9.5,\r\n' +
        'view,2024-03-01 07:00:00,true,ios,,,,3,\r\n',
    )
  })

  it('quotes a comma and quotes (RFC 4180), keeps non-ASCII text, shows milliseconds, and starts with a BOM on csvUtfEncoding=0', async () => {
    const body = { fromDate: '2024-03-01', toDate: '2024-03-06', format: 'csv' }
    const expected = HEADER + 'view,2024-03-05 10:00:00.250,,web,,,,,\r\n' + 'view,2024-03-05 10:00:00,,"ios, ""beta""",,,,,Zürich · 北京\r\n'
    const marked = await post('/uba/api/cohort/users/u9/sequence/export?csvUtfEncoding=0', body)
    expect(await bodyText(marked)).toBe(`\uFEFF${expected}`)
    const plain = await post('/uba/api/cohort/users/u9/sequence/export?csvUtfEncoding=1', body)
    expect(await bodyText(plain)).toBe(expected)
    // by distinctId or xwho, the same file
    const personal = await post('/uba/api/users/sequence/export?csvUtfEncoding=0', { ...body, xwho: 'u9' })
    expect(personal.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(await bodyText(personal)).toBe(`\uFEFF${expected}`)
  })

  it('gives the header alone for an empty range; JSON lines stay the default; a bad format is a 400 naming format', async () => {
    const empty = await post('/uba/api/cohort/users/u1/sequence/export', { fromDate: '2023-01-01', toDate: '2023-01-02', format: 'csv' })
    expect(await bodyText(empty)).toBe(HEADER)
    const json = await post('/uba/api/cohort/users/u9/sequence/export', { fromDate: '2024-03-05', toDate: '2024-03-05', format: 'json' })
    expect(json.headers.get('content-type')).toContain('application/x-ndjson')
    expect((await json.text()).split('\n')[0]).toBe(JSON.stringify({ xwhat: 'view', xwhen: sh('2024-03-05 10:00') + 250, $os: 'web' }))
    for (const path of ['/uba/api/cohort/users/u9/sequence/export', '/uba/api/users/sequence/export']) {
      const bad = await post(path, { fromDate: '2024-03-05', toDate: '2024-03-05', format: 'xlsx', ...(path.startsWith('/uba/api/users') ? { xwho: 'u9' } : {}) })
      expect(bad.status).toBe(400)
      expect(((await bad.json()) as { data: string[] }).data).toEqual(['format'])
    }
  })
})

import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'
import type { TestServer } from '../helpers/server'
import { createCohort, single, userRule } from './cohorts-helpers'

/** The members of a cohort as CSV: the JSON lines export's users, in a file a spreadsheet opens. */

describe.each(ENGINES)('export of the users of a cohort as CSV, on %s', (engine) => {
  const host = useEngine(engine)
  let s: TestServer
  let p: Project
  let everyone: string
  let id: Record<string, number>

  const profile = (xwho: string, xcontext: Record<string, unknown>) => JSON.stringify({ xwho, xwhat: '$profile_set', xwhen: Date.parse('2024-01-01T00:00:00Z'), xcontext })

  /* Three users: a plain one, one whose values need quoting and hold non-ASCII text, one with no values. */
  beforeAll(async () => {
    s = host.server
    p = await host.project('cucsv', 'UTC')
    const lines = [
      profile('u1', { city: 'Beijing', age: 20, vip: true, $signup_time: '2024-01-05 10:20:30', hobbies: ['go', 'tea'] }),
      profile('u2', { city: 'Paris, "Rive Gauche"', age: 30, vip: false, hobbies: ['thé', 'vélo'] }),
      profile('u3', { city: 'Zürich · 北京' }),
      profile('u4', { age: 50 }),
    ]
    const job = await importAndWait(s, p, { path: fixture('cucsv.jsonl', lines.join('\n')) })
    expect(job.state).toBe('succeeded')
    const rows = await host.rows(p, 'SELECT xwho, distinct_id FROM user_ids')
    id = Object.fromEntries(rows.map((r) => [String(r.xwho), Number(r.distinct_id)]))
    everyone = (await createCohort(s, p, { content: single(userRule('user.xwho', 'CONTAIN', ['u'])) })).code
  })

  const exported = async (body: Record<string, unknown>, query = '') => {
    const res = await fetch(`${s.url}/uba/api/cohort/users/export${query}`, { method: 'POST', headers: { ...p, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    // decoded by hand: fetch's text() would drop a byte-order mark
    return { status: res.status, type: res.headers.get('content-type'), text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(await res.arrayBuffer()) }
  }

  it('writes the keys as the header line, then one user per line, quoted where needed (RFC 4180)', async () => {
    const res = await exported({ cohortCode: everyone, format: 'csv', properties: ['city', 'age', 'vip', '$signup_time', 'hobbies'] })
    expect(res.status).toBe(200)
    expect(res.type).toBe('text/csv; charset=utf-8')
    expect(res.text).toBe(
      'city,age,vip,$signup_time,hobbies,distinct_id,xwho\r\n' +
        `Beijing,20,true,2024-01-05 10:20:30,"[""go"",""tea""]",${id.u1},u1\r\n` +
        `"Paris, ""Rive Gauche""",30,false,,"[""thé"",""vélo""]",${id.u2},u2\r\n` +
        `Zürich · 北京,,,,,${id.u3},u3\r\n` +
        `,50,,,,${id.u4},u4\r\n`,
    )
  })

  it('starts with a byte-order mark on csvUtfEncoding=0, stops at limit, and gives the header alone for an empty cohort', async () => {
    const marked = await exported({ cohortCode: everyone, format: 'csv', properties: ['city'], limit: 1 }, '?csvUtfEncoding=0')
    expect(marked.text).toBe(`\uFEFFcity,distinct_id,xwho\r\nBeijing,${id.u1},u1\r\n`)
    const empty = (await createCohort(s, p, { content: single(userRule('user.city', 'EQ', ['Nowhere'])) })).code
    expect((await exported({ cohortCode: empty, format: 'csv', properties: ['city'] })).text).toBe('city,distinct_id,xwho\r\n')
  })

  it('keeps JSON lines as the default and refuses another format with a 400 naming format', async () => {
    const json = await exported({ cohortCode: everyone, properties: ['age'], limit: 1 })
    expect(json.type).toContain('application/x-ndjson')
    expect(json.text).toBe(`${JSON.stringify({ age: 20, distinct_id: id.u1, xwho: 'u1' })}\n`)
    const bad = await exported({ cohortCode: everyone, format: 'xlsx' })
    expect(bad.status).toBe(400)
    expect(JSON.parse(bad.text).data).toEqual(['format'])
  })
})

import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'
import type { TestServer } from '../helpers/server'

const at = (day: string, hour = 10) => Date.parse(`2024-03-${day}T${String(hour).padStart(2, '0')}:00:00Z`)
const record = (xwho: string, xwhat: string, xwhen: number) => JSON.stringify({ xwho, xwhat, xwhen, xcontext: {} })

describe.each(ENGINES)('dashboards, on %s', (engine) => {
  const host = useEngine(engine)
  let s: TestServer
  let p: Project
  let funnelId: number
  let eventsId: number
  let profileId: number

  beforeAll(async () => {
    s = host.server
    p = await host.project('dp', 'UTC')
    const x = { xtoken: s.creds.xtoken }
    expect((await s.call('POST', '/uba/manage/enterprise/accounts', { headers: x, body: { email: 'ann@example.com', name: 'Ann' } })).status).toBe(200)
    // March 1: a views and buys, b views; March 5: c and d view, c buys; e views on March 9
    const lines = [
      record('a', 'view', at('01')),
      record('a', 'buy', at('01', 11)),
      record('b', 'view', at('01')),
      record('c', 'view', at('05')),
      record('c', 'buy', at('05', 12)),
      record('d', 'view', at('05')),
      record('e', 'view', at('09')),
    ]
    await importAndWait(s, p, { path: fixture('dp.jsonl', lines.join('\n')) })
    const save = async (body: object) => (await s.call('POST', '/uba/api/reports', { headers: p, body })).body.id as number
    const dated = { fromDate: '2024-03-01', toDate: '2024-03-01', crowds: ['$ALL'] }
    funnelId = await save({ name: 'View to buy', kind: 'funnels', request: { ...dated, steps: [{ expression: 'event.view' }, { expression: 'event.buy' }] } })
    eventsId = await save({ name: 'Viewers', kind: 'events', request: { ...dated, unit: 'DAY', measures: [{ expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' }] } })
    profileId = await save({ name: 'Profiles', kind: 'userAttributes', request: { crowds: ['$ALL'], measure: { aggregator: 'USER_COUNT' }, byFields: [] } })
  })

  const tiles = () => [
    { reportId: funnelId, x: 0, y: 0, w: 6, h: 4 },
    { reportId: eventsId, x: 6, y: 0, w: 6, h: 4 },
    { reportId: profileId, x: 0, y: 4, w: 12, h: 3 },
  ]
  const run = async (kind: string, request: object) => (await s.call('POST', `/uba/api/${kind}/analyze`, { headers: p, body: request })).body

  it('runs every tile on the dashboard range instead of the report’s own, with the numbers of that range', async () => {
    const created = await s.call('POST', '/uba/api/dashboards', { headers: p, body: { name: 'Shop', tiles: tiles(), fromDate: '2024-03-01', toDate: '2024-03-07' } })
    expect(created.status).toBe(200)
    const board = (await s.call('GET', `/uba/api/dashboards/${created.body.id}`, { headers: p })).body
    expect(board).toMatchObject({ name: 'Shop', fromDate: '2024-03-01', toDate: '2024-03-07', crowd: null, createdUser: 'API' })
    const [funnel, events, profiles] = board.tiles
    expect(funnel).toMatchObject({ reportId: funnelId, x: 0, y: 0, w: 6, h: 4, report: { name: 'View to buy', kind: 'funnels' } })
    expect(funnel.report.request).toMatchObject({ fromDate: '2024-03-01', toDate: '2024-03-07' })
    // user attributes have no range: their request is the report's own
    expect(profiles.report.request).toEqual({ crowds: ['$ALL'], measure: { aggregator: 'USER_COUNT' }, byFields: [] })

    // March 1-7: a, b, c, d viewed; a and c bought
    const f = await run('funnels', funnel.report.request)
    expect(f.rows[0].stepsDetail.map((d: { convertedUser: number[] }) => d.convertedUser[0])).toEqual([4, 2])
    const e = await run('events', events.report.request)
    expect(e.rows[0].sum[0]).toBe(4)
    // the reports themselves are unchanged: March 1 only
    const own = (await s.call('GET', `/uba/api/reports/${funnelId}`, { headers: p })).body
    expect((await run('funnels', own.request)).rows[0].stepsDetail.map((d: { convertedUser: number[] }) => d.convertedUser[0])).toEqual([2, 1])
  })

  it('changes the range and the crowd; null gives each report its own again', async () => {
    const board = (await s.call('POST', '/uba/api/dashboards', { headers: p, body: { name: 'Later', tiles: tiles() } })).body
    expect(board.tiles[0].report.request.fromDate).toBe('2024-03-01')
    const changed = (await s.call('PUT', `/uba/api/dashboards/${board.id}`, { headers: p, body: { fromDate: '2024-03-05', toDate: '2024-03-09', crowd: '$ALL' } })).body
    expect(changed.tiles[1].report.request).toMatchObject({ fromDate: '2024-03-05', toDate: '2024-03-09', crowds: ['$ALL'] })
    // c, d, e viewed from March 5 to 9
    expect((await run('events', changed.tiles[1].report.request)).rows[0].sum[0]).toBe(3)
    const cleared = (await s.call('PUT', `/uba/api/dashboards/${board.id}`, { headers: p, body: { fromDate: null, toDate: null, crowd: null } })).body
    expect(cleared).toMatchObject({ fromDate: null, toDate: null, crowd: null })
    expect(cleared.tiles[1].report.request.toDate).toBe('2024-03-01')
  })

  it('saves a new layout sent whole: the tiles in their new order and sizes, the range and crowd untouched', async () => {
    const board = (await s.call('POST', '/uba/api/dashboards', { headers: p, body: { name: 'Arranged', tiles: tiles(), fromDate: '2024-03-01', toDate: '2024-03-07', crowd: '$ALL' } })).body
    // the profiles tile first at half width, the funnel large at full width below it, the events tile beside the profiles
    const layout = [
      { reportId: profileId, x: 0, y: 0, w: 6, h: 5 },
      { reportId: eventsId, x: 6, y: 0, w: 6, h: 5 },
      { reportId: funnelId, x: 0, y: 5, w: 12, h: 8 },
    ]
    const changed = await s.call('PUT', `/uba/api/dashboards/${board.id}`, { headers: p, body: { tiles: layout } })
    expect(changed.status).toBe(200)
    expect(changed.body).toMatchObject({ fromDate: '2024-03-01', toDate: '2024-03-07', crowd: '$ALL' })
    const read = (await s.call('GET', `/uba/api/dashboards/${board.id}`, { headers: p })).body
    expect(read.tiles.map(({ reportId, x, y, w, h }: Record<string, number>) => ({ reportId, x, y, w, h }))).toEqual(layout)
    expect(read.tiles.map((t: { report: { name: string } }) => t.report.name)).toEqual(['Profiles', 'Viewers', 'View to buy'])
    const listed = (await s.call('GET', '/uba/api/dashboards', { headers: p })).body.find((d: { id: number }) => d.id === board.id)
    expect(listed.tiles).toEqual(layout)
  })

  it('keeps a tile whose report was deleted, with report null', async () => {
    const gone = (await s.call('POST', '/uba/api/reports', { headers: p, body: { name: 'Soon gone', kind: 'events', request: {} } })).body.id
    const board = (await s.call('POST', '/uba/api/dashboards', { headers: p, body: { name: 'With a gap', tiles: [{ reportId: gone, x: 0, y: 0, w: 4, h: 3 }] } })).body
    expect((await s.call('DELETE', `/uba/api/reports/${gone}`, { headers: p })).status).toBe(200)
    const after = (await s.call('GET', `/uba/api/dashboards/${board.id}`, { headers: p })).body
    expect(after.tiles).toEqual([{ reportId: gone, x: 0, y: 0, w: 4, h: 3, report: null }])
  })

  it('refuses bad input with a 400 naming the parameter; names are unique (501/50101); only the creator changes or deletes', async () => {
    const post = (body: object, query = '') => s.call('POST', `/uba/api/dashboards${query}`, { headers: p, body })
    const cases: [object, string][] = [
      [{ tiles: [] }, 'name'],
      [{ name: 'T', tiles: [{ reportId: 99999, x: 0, y: 0, w: 4, h: 3 }] }, 'tiles[0].reportId'],
      [{ name: 'T', tiles: [{ reportId: funnelId, x: 10, y: 0, w: 4, h: 3 }] }, 'tiles[0].x'],
      [{ name: 'T', tiles: [{ reportId: funnelId, x: 0, y: 0, w: 13, h: 3 }] }, 'tiles[0].w'],
      [{ name: 'T', tiles: [{ reportId: funnelId, x: 0, y: 0, w: 4 }] }, 'tiles[0].h'],
      [{ name: 'T', fromDate: '2024-03-01' }, 'toDate'],
      [{ name: 'T', fromDate: '2024-03-09', toDate: '2024-03-01' }, 'toDate'],
      [{ name: 'T', fromDate: '2024-02-30', toDate: '2024-03-01' }, 'fromDate'],
      [{ name: 'T', crowd: 'c999' }, 'crowd'],
    ]
    for (const [body, param] of cases) {
      const res = await post(body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body.data).toEqual([param])
    }
    expect((await s.call('GET', '/uba/api/dashboards', { headers: p })).body.map((d: { name: string }) => d.name)).not.toContain('T')

    const ann = (await post({ name: 'Ann board' }, '?loginUser=ann@example.com')).body
    expect(ann.createdUser).toBe('Ann')
    const dup = await post({ name: 'Ann board' })
    expect([dup.status, dup.body.code]).toEqual([501, 50101])
    const byApi = await s.call('PUT', `/uba/api/dashboards/${ann.id}`, { headers: p, body: { name: 'Mine now' } })
    expect(byApi.body.data).toEqual(['loginUser'])
    expect((await s.call('DELETE', `/uba/api/dashboards/${ann.id}`, { headers: p })).body.data).toEqual(['loginUser'])
    expect((await s.call('DELETE', `/uba/api/dashboards/${ann.id}?loginUser=ann@example.com`, { headers: p })).body).toEqual({ success: 0 })
    expect((await s.call('GET', `/uba/api/dashboards/${ann.id}`, { headers: p })).body.data).toEqual(['id'])
  })
})

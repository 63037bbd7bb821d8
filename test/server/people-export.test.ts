import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import type { TestServer } from '../helpers/server'
import { BULK, loadPeople, setMasking, sh } from './people-fixture'

describe.each(ENGINES)('user behaviour sequence export, on %s', (engine) => {
  const host = useEngine(engine)
  let s: TestServer
  let p: Project
  let ids: Record<string, number>

  beforeAll(async () => {
    ;({ s, p, ids } = await loadPeople(host, 'pexport'))
    await setMasking(s, p, 'plan_event_properties', 'coupon', 1)
  })

  const post = (path: string, body: unknown) =>
    fetch(s.url + path, { method: 'POST', headers: { ...p, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const json = async (res: Response): Promise<any> => res.json()
  const lines = (text: string) => text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l))

  it('streams one object per line, newest first: xwhat, xwhen in epoch ms, the non-null properties', async () => {
    const res = await post('/uba/api/cohort/users/u1/sequence/export', { fromDate: '2024-03-01', toDate: '2024-03-03' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('application/x-ndjson')
    const text = await res.text()
    expect(text.endsWith('\n')).toBe(true)
    expect(lines(text)).toEqual([
      { xwhat: 'view', xwhen: sh('2024-03-03 00:10'), $os: 'android' },
      { xwhat: 'view', xwhen: sh('2024-03-02 23:30'), $os: 'ios' },
      { xwhat: 'add', xwhen: sh('2024-03-01 12:00'), price: 1 },
      { xwhat: 'buy', xwhen: sh('2024-03-01 12:00'), price: 9.5, coupon: '******', paid_at: '2024-03-01 12:00:05' },
      { xwhat: 'view', xwhen: sh('2024-03-01 07:00'), $os: 'ios', price: 3, $is_login: true },
    ])
  })

  it('keeps the chosen events, virtual ones expanded, and gives an empty body for an empty range', async () => {
    const buy = await post('/uba/api/cohort/users/u1/sequence/export', { fromDate: '2024-03-01', toDate: '2024-03-03', events: ['buy'], useCache: true })
    expect(lines(await buy.text()).map((l) => l.xwhat)).toEqual(['buy'])
    const empty = await post('/uba/api/cohort/users/u1/sequence/export', { fromDate: '2023-01-01', toDate: '2023-01-02' })
    expect(empty.status).toBe(200)
    expect(await empty.text()).toBe('')
  })

  it('streams a long sequence in chunks: every line, in order, without a length known up front', async () => {
    const res = await post('/uba/api/cohort/users/bulk/sequence/export', { fromDate: '2024-03-10', toDate: '2024-03-10' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-length')).toBeNull()
    expect(res.headers.get('transfer-encoding')).toBe('chunked')
    const reader = res.body!.getReader()
    const decoder = new TextDecoder()
    let text = ''
    let pieces = 0
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      pieces++
      text += decoder.decode(value, { stream: true })
    }
    const rows = lines(text)
    expect(rows).toHaveLength(BULK)
    expect(pieces).toBeGreaterThan(1)
    expect(rows[0]).toEqual({ xwhat: 'tick', xwhen: sh('2024-03-10 00:00') + (BULK - 1) * 1000, n: BULK - 1 })
    expect(rows.at(-1)).toEqual({ xwhat: 'tick', xwhen: sh('2024-03-10 00:00'), n: 0 })
    expect(rows.every((r, i) => r.n === BULK - 1 - i)).toBe(true)
  })

  it('answers an unknown user or a bad field with a JSON 400, not a broken stream', async () => {
    const unknown = await post('/uba/api/cohort/users/nobody/sequence/export', { fromDate: '2024-03-01', toDate: '2024-03-03' })
    expect(unknown.status).toBe(400)
    expect(unknown.headers.get('content-type')).toContain('application/json')
    expect((await json(unknown)).data).toEqual(['xwho'])
    const events = await post('/uba/api/cohort/users/u1/sequence/export', { fromDate: '2024-03-01', toDate: '2024-03-03', events: ['nope'] })
    expect((await json(events)).data).toEqual(['events[0]'])
    const order = await post('/uba/api/cohort/users/u1/sequence/export', { fromDate: '2024-03-04', toDate: '2024-03-03' })
    expect((await json(order)).data).toEqual(['toDate'])
    const useCache = await post('/uba/api/cohort/users/u1/sequence/export', { fromDate: '2024-03-01', toDate: '2024-03-03', useCache: 'yes' })
    expect((await json(useCache)).data).toEqual(['useCache'])
  })

  it('finds the user by distinctId or xwho on /uba/api/users/sequence/export, exactly one of them', async () => {
    const body = { fromDate: '2024-03-01', toDate: '2024-03-02' }
    const byId = await post('/uba/api/users/sequence/export', { distinctId: ids.u1, ...body })
    expect(byId.status).toBe(200)
    expect(lines(await byId.text()).map((l) => [l.xwhat, l.xwhen])).toEqual([
      ['view', sh('2024-03-02 23:30')], ['add', sh('2024-03-01 12:00')], ['buy', sh('2024-03-01 12:00')], ['view', sh('2024-03-01 07:00')],
    ])
    const byWho = await post('/uba/api/users/sequence/export', { xwho: 'u2', ...body })
    expect(lines(await byWho.text())).toEqual([{ xwhat: 'view', xwhen: sh('2024-03-01 08:00') }])
    const both = await post('/uba/api/users/sequence/export', { distinctId: ids.u1, xwho: 'u1', ...body })
    expect(both.status).toBe(400)
    expect((await json(both)).data).toEqual(['distinctId', 'xwho'])
    const neither = await post('/uba/api/users/sequence/export', body)
    expect(neither.status).toBe(400)
    expect((await json(neither)).data).toEqual(['distinctId', 'xwho'])
    const unknown = await post('/uba/api/users/sequence/export', { distinctId: 424242, ...body })
    expect(unknown.status).toBe(400)
    expect((await json(unknown)).data).toEqual(['distinctId'])
  })

  it('documents the six single-user endpoints in /openapi.json', async () => {
    const doc = await json(await fetch(`${s.url}/openapi.json`))
    for (const path of ['/uba/api/cohort/users/{xwho}', '/uba/api/cohort/users/{xwho}/sequence', '/uba/api/cohort/users/{xwho}/sequence/export', '/uba/api/users/personal', '/uba/api/users/sequence', '/uba/api/users/sequence/export']) {
      expect(doc.paths[path]?.post?.summary, path).toBeTruthy()
      expect(doc.paths[path].post.description, path).toContain('******')
    }
  })
})

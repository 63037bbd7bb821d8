import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setClock } from '../../src-main/domain/time/clock'
import { lastDueTime, runDueRecomputes } from '../../src-main/domain/cohorts/scheduler'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'
import { startTestServer, type TestServer } from '../helpers/server'
import { eventRule, members, readCohort, settled, single } from './cohorts-helpers'

describe.each(ENGINES)('daily recompute of dynamic cohorts, on %s', (engine) => {
  // the app restarts over the same folder (and, on ClickHouse, the same running server)
  const dataDir = mkdtempSync(join(tmpdir(), 'uba-cohort-schedule-'))
  const host = useEngine(engine, { dataDir })
  let s: TestServer
  let p: Project

  const at = (local: string) => Date.parse(`${local}+08:00`)
  const rec = (xwho: string, local: string) => JSON.stringify({ xwho, xwhat: 'buy', xwhen: at(local), xcontext: {} })
  /** Bought today (in the project's time zone): the members change every day. */
  const boughtToday = single(eventRule('event.buy', 'TOTAL_COUNT', 'GTE', [1], { rel: '0 day' }))

  /* Asia/Shanghai (UTC+8): u1 buys on 01-01, u2 on 01-02, u3 on 01-04. */
  beforeAll(async () => {
    s = host.server
    p = await host.project('cs', 'Asia/Shanghai')
    const lines = [rec('u1', '2024-01-01T12:00:00'), rec('u2', '2024-01-02T12:00:00'), rec('u3', '2024-01-04T12:00:00')]
    const job = await importAndWait(s, p, { path: fixture('cs.jsonl', lines.join('\n')) })
    if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
  })
  afterAll(async () => {
    setClock()
    await s.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const create = async (name: string, dynamic: number) => {
    const res = await s.call('POST', '/uba/api/cohort', { headers: p, body: { name, dynamic, content: boughtToday } })
    return settled(s, p, res.body.id)
  }

  it('is due at 03:00 in the project time zone', () => {
    // 03:00 in Shanghai is 19:00 UTC the day before
    expect(lastDueTime(Date.parse('2024-01-01T19:00:00Z'), 'Asia/Shanghai')).toBe(Date.parse('2024-01-01T19:00:00Z'))
    expect(lastDueTime(Date.parse('2024-01-01T18:59:59Z'), 'Asia/Shanghai')).toBe(Date.parse('2023-12-31T19:00:00Z'))
    expect(lastDueTime(Date.parse('2024-01-02T10:00:00Z'), 'UTC')).toBe(Date.parse('2024-01-02T03:00:00Z'))
    // New York in summer (UTC-4) and in winter (UTC-5)
    expect(lastDueTime(Date.parse('2024-07-01T12:00:00Z'), 'America/New_York')).toBe(Date.parse('2024-07-01T07:00:00Z'))
    expect(lastDueTime(Date.parse('2024-01-15T12:00:00Z'), 'America/New_York')).toBe(Date.parse('2024-01-15T08:00:00Z'))
  })

  it('recomputes dynamic cohorts once a day from 03:00, static ones never', async () => {
    setClock(at('2024-01-01T10:00:00'))
    const dynamic = await create('dynamic today', 1)
    const fixed = await create('static today', 0)
    expect(await members(s, p, dynamic.code)).toEqual(['u1'])
    expect(await members(s, p, fixed.code)).toEqual(['u1'])

    // 02:59 the next day: the last due moment (01-01 03:00) is before the cohort's computation
    expect(runDueRecomputes(s.app.ctx, at('2024-01-02T02:59:00'))).toEqual([])
    const started = runDueRecomputes(s.app.ctx, at('2024-01-02T03:00:00'))
    expect(started).toContain(dynamic.id)
    expect(started).not.toContain(fixed.id)
    const after = await settled(s, p, dynamic.id)
    expect(after).toMatchObject({ status: 'success', userNumber: 1, calculatedTime: '2024-01-02 03:00:00' })
    expect(await members(s, p, dynamic.code)).toEqual(['u2'])
    expect(await members(s, p, fixed.code)).toEqual(['u1'])
    expect((await readCohort(s, p, fixed.id)).calculatedTime).toBe('2024-01-01 10:00:00')
    // once per day
    expect(runDueRecomputes(s.app.ctx, at('2024-01-02T03:05:00'))).not.toContain(dynamic.id)
    // 01-03: nobody bought that day, an empty cohort
    expect(runDueRecomputes(s.app.ctx, at('2024-01-03T04:00:00'))).toContain(dynamic.id)
    expect(await settled(s, p, dynamic.id)).toMatchObject({ status: 'success', userNumber: 0, calculatedTime: '2024-01-03 04:00:00' })
    setClock()
  })

  it('catches up a missed recompute at start-up, and resumes a computation cut short', async () => {
    setClock(at('2024-01-02T10:00:00'))
    const dynamic = await create('dynamic restart', 1)
    const fixed = await create('static restart', 0)
    expect(await members(s, p, dynamic.code)).toEqual(['u2'])
    // the app stops while the static cohort is being computed
    s.app.ctx.meta.prepare("UPDATE cohorts SET status = 'calculating' WHERE id = ?").run(fixed.id)
    await s.app.close()

    // two days later (past 03:00 of 01-03 and 01-04), the app starts again over the same data
    setClock(at('2024-01-04T09:00:00'))
    s = await startTestServer({ dataDir })
    const caughtUp = await settled(s, p, dynamic.id)
    expect(caughtUp).toMatchObject({ status: 'success', userNumber: 1, calculatedTime: '2024-01-04 09:00:00' })
    expect(await members(s, p, dynamic.code)).toEqual(['u3'])
    const resumed = await settled(s, p, fixed.id)
    expect(resumed.status).toBe('success')
    expect(await members(s, p, fixed.code)).toEqual(['u3'])
    setClock()
  })
})

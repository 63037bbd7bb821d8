import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseError } from '../../src-main/warehouse/clickhouse/errors'
import { clickhouseAvailable, startClickHouse, type TestClickHouse } from '../helpers/clickhouse'
import { PROBES } from './probes'

describe.skipIf(!clickhouseAvailable())('what ClickHouse 18.16 does for the analyses (docs/clickhouse.md)', () => {
  let ch: TestClickHouse

  /** The raw TabSeparated answer, or the error code. */
  async function run(sql: string, settings: Record<string, string> = {}, database = 'probe'): Promise<{ text?: string; code?: number }> {
    const search = new URLSearchParams({ database, default_format: 'TabSeparated', ...settings })
    const res = await fetch(`${ch.url}/?${search}`, { method: 'POST', body: sql })
    const text = await res.text()
    if (res.ok) return { text: text.replace(/\n$/, '') }
    return { code: parseError(text, '')?.code ?? -1, text }
  }

  beforeAll(async () => {
    ch = await startClickHouse()
  })
  afterAll(async () => ch?.stop())

  it('runs on 18.16', async () => {
    expect((await run('SELECT version()', {}, 'default')).text).toMatch(/^18\.16\./)
  })

  for (const probe of PROBES) {
    it(`${probe.name}: ${probe.code !== undefined ? `error ${probe.code}` : 'answers'}`, async () => {
      await run('DROP DATABASE IF EXISTS probe', {}, 'default')
      await run('CREATE DATABASE probe', {}, 'default')
      for (const sql of probe.setup ?? []) expect(await run(sql)).toEqual({ text: '' })
      const answer = await run(probe.sql, probe.settings)
      if (probe.code !== undefined) expect(answer.code).toBe(probe.code)
      else expect(answer).toEqual({ text: probe.rows })
    })
  }
})

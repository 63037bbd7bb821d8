import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { captureStatements, CHDB, type Chdb, openChdb, warnWithoutChdb } from '../helpers/chdb'
import { clickhouseAvailable } from '../helpers/clickhouse'
import { eventually } from '../helpers/server'
import { useTwins } from '../helpers/twinProjects'
import { content, createCohort, eventRule, form, group, postForm, settled, single, userRule } from '../server/cohorts-helpers'
import { cohortData, ZONE } from './peopleData'

/**
 * Cohort computation on a CURRENT ClickHouse: a cohort's run writes its table (built beside and
 * swapped in), which a replay of the whole run would clash with, so only its reads are replayed.
 * The statements the run sends 18.16 are captured (chdb.ts captureStatements); the SELECT that
 * fills the cohort's table (`CREATE TABLE cohort_…__next … AS SELECT`), after the temporary tables
 * it reads (a file's values), runs again in a session of its own on 18.16 and on chDB (26.x, over
 * a copy of the project's tables), and the rows are compared: with each other, with the rows the
 * run left in the cohort's table, and with the hand-computed members (those of cohorts.test.ts,
 * peopleData.ts's users). Every rule kind of the cohort tests: user properties, event counts on
 * local days, did not do, ranges, relative days, distinct values, event filters (one on a user
 * property), AND / OR / AND_NOT, file cohorts by id and by a user property, a recompute; tags from rules and from a file (their
 * INSERT … SELECT of a version's rows).
 * Opt-in like paths-current.test.ts: UBA_CHDB names a folder with chdb installed.
 */
warnWithoutChdb('ClickHouse current-version cohort computation')

const days = (from: string, to: string) => ({ abs: [from, to] as [string, string] })
const views = (fn: string, params: number[], from = '2024-01-01', to = '2024-01-02', filter?: unknown) => eventRule('event.view', 'TOTAL_COUNT', fn, params, days(from, to), filter)
const pays = (fn: string, params: number[], from = '2024-01-01', to = '2024-01-03') => eventRule('event.pay', 'TOTAL_COUNT', fn, params, days(from, to))
const where = (expression: string, fn: string, params: unknown[]) => ({ conditions: [{ expression, function: fn, params }], relation: 'AND' })
const cityOrViews = group([userRule('user.city', 'EQ', ['X']), views('GTE', [2])], 'OR')

/** Rule cohorts and their members (cohorts.test.ts). */
const RULES: [string, unknown, string[]][] = [
  ['a user property', single(userRule('user.city', 'EQ', ['X'])), ['a', 'e']],
  ['a number user property', single(userRule('user.age', 'GT', [25])), ['a']],
  ['a missing user property (no profile)', single(userRule('user.city', 'NULL')), ['c', 'dan']],
  ['every user', single(userRule('user.xwho', 'NOT_NULL')), ['a', 'b', 'c', 'dan', 'e']],
  ['events on one local day: none', single(views('GTE', [2], '2024-01-01', '2024-01-01')), []],
  ['events on local days', single(views('GTE', [2])), ['a']],
  ['events of a merged anonymous id', single(views('GTE', [1])), ['a', 'b', 'dan']],
  ['a range of counts', single(views('RANGE', [1, 1], '2024-01-01', '2024-01-03')), ['b', 'c', 'dan']],
  ['relative days', single(eventRule('event.view', 'TOTAL_COUNT', 'GTE', [1], { rel: '3650,0,day' })), ['a', 'b', 'c', 'dan']],
  ['did not do', single(pays('EQ', [0])), ['b', 'c', 'e']],
  ['fewer than one on a day', single(pays('LT', [1], '2024-01-03', '2024-01-03')), ['b', 'c', 'dan', 'e']],
  ['not equal', single(pays('NOT_EQ', [1])), ['b', 'c', 'e']],
  ['at most one', single(pays('LTE', [1])), ['a', 'b', 'c', 'dan', 'e']],
  ['distinct values', single(eventRule('event.view.price', 'REMOVE_DUMPLICATE', 'GTE', [2], days('2024-01-01', '2024-01-03'))), ['a']],
  ['an event filter', single(views('GTE', [1], '2024-01-01', '2024-01-03', where('event.view.price', 'GT', [100]))), ['b', 'c']],
  ['a user property in an event filter', single(views('GTE', [1], '2024-01-01', '2024-01-03', where('user.city', 'EQ', ['X']))), ['a']],
  ['OR in a group, AND_NOT between groups', content([cityOrViews, group([pays('GTE', [1])])], ['AND_NOT']), ['e']],
  ['AND between groups', content([cityOrViews, group([pays('GTE', [1])])], ['AND']), ['a']],
  ['AND in a group with did not do', content([group([userRule('user.city', 'EQ', ['X']), pays('EQ', [0])], 'AND')]), ['e']],
]

/** The read that fills a cohort's table (built beside, then swapped in): [statement, the table, the SELECT]. */
const FILL = /^\s*CREATE TABLE (\S+)__next ENGINE = MergeTree ORDER BY tuple\(\) AS (SELECT[\s\S]*)$/
/** A tag's version: rows (version, distinct_id, value) inserted into its table (or the executor's staging table of it). */
const TAG_FILL = /^\s*INSERT INTO (\S+) (SELECT [\s\S]*)$/
const TAG_TABLE = /^\s*CREATE TABLE IF NOT EXISTS (\S+) \(version Int32/
const TEMPORARY = /^\s*CREATE TEMPORARY TABLE (?:IF NOT EXISTS )?(\S+)/i

describe.skipIf(!CHDB || !clickhouseAvailable())('cohort computation\'s reads on current ClickHouse (chDB) and 18.16: the same members', () => {
  const twins = useTwins('coc', ZONE, cohortData)
  const database = () => `uba_${twins.house.appKey}`
  let chdb: Chdb | undefined
  beforeAll(async () => {
    chdb = openChdb()
    await chdb.copy(twins.clickhouse.url, database(), ['event_vd', 'profile_vd', 'user_ids', 'user_aliases'])
  }, 180_000)
  afterAll(() => chdb?.close())

  /** A statement's rows on 18.16, in the HTTP session `session`. */
  const old = async (sql: string, session: string): Promise<unknown[][]> => {
    const search = new URLSearchParams({ database: database(), session_id: session, default_format: 'JSONCompact', output_format_json_quote_64bit_integers: '0' })
    const res = await fetch(`${twins.clickhouse.url}/?${search}`, { method: 'POST', body: sql })
    const text = await res.text()
    if (!res.ok) throw new Error(`18.16 refused the replay: ${text}\n${sql}`)
    return text ? JSON.parse(text).data : []
  }
  const sorted = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort()

  /**
   * Runs `work` (a cohort's computation) capturing its statements; replays the temporary tables and
   * the fill's SELECT on both versions. Resolves to the rows the replay selected: a cohort's
   * (distinct_id, xwho), a tag's (version, distinct_id, value).
   */
  async function expectSameFill(work: () => Promise<void>): Promise<unknown[][]> {
    const statements = await captureStatements(twins.clickhouse.url, database(), work)
    const tag = statements.map((sql) => TAG_TABLE.exec(sql)?.[1]).find((t) => t !== undefined)
    const fills = tag
      ? statements.map((sql) => TAG_FILL.exec(sql)).filter((m) => m !== null && m[1].replace(/`/g, '').endsWith(tag)).map((m) => m![2])
      : statements.map((sql) => FILL.exec(sql)).filter((m) => m !== null).map((m) => m[2])
    expect(fills.length, statements.join('\n----\n')).toBe(1)
    const [select] = fills
    // what the run left: the cohort's table, or the tag's rows of the version written
    const written = tag ? (rows: unknown[][]) => `SELECT * FROM ${tag} WHERE version = ${Number(rows[0]?.[0] ?? -1)}` : () => `SELECT * FROM ${FILL.exec(statements.find((sql) => FILL.test(sql))!)![1]}`
    const temporaries = statements.filter((sql) => TEMPORARY.test(sql))
    const current = chdb!
    const session = `chdb-cohort-${Math.random().toString(36).slice(2)}`
    await old(`USE ${database()}`, session)
    try {
      for (const sql of temporaries) {
        await old(sql, session)
        current.query(sql)
      }
      const before = await old(select, session)
      let now: unknown[][]
      try {
        now = current.rows(select)
      } catch (e) {
        throw new Error(`current ClickHouse refused: ${(e as Error).message}\n${select}`)
      }
      expect(sorted(now), select).toEqual(sorted(before))
      // the replayed read is the one that filled the cohort's table
      expect(sorted(before)).toEqual(sorted(await old(written(before), session)))
      return before
    } finally {
      for (const sql of temporaries) current.query(`DROP TEMPORARY TABLE IF EXISTS ${TEMPORARY.exec(sql)![1]}`)
    }
  }

  const xwho = (rows: unknown[][]) => rows.map((r) => String(r[1])).sort()

  for (const [name, c, expected] of RULES) {
    it(`${name}: ${expected.join(', ') || 'nobody'}`, async () => {
      const users = await expectSameFill(async () => {
        const cohort = await createCohort(twins.server, twins.house, { content: c })
        expect(cohort.status, cohort.failReason).toBe('success')
      })
      expect(xwho(users)).toEqual(expected)
    })
  }

  it('a recompute of a dynamic cohort', async () => {
    const cohort = await createCohort(twins.server, twins.house, { content: single(views('GTE', [1])), dynamic: 1 })
    const users = await expectSameFill(async () => {
      const again = await twins.server.call('POST', `/uba/api/cohort/${cohort.id}/recalculate`, { headers: twins.house })
      expect(again.status).toBe(200)
      expect(await settled(twins.server, twins.house, cohort.id)).toMatchObject({ status: 'success', userNumber: 3 })
    })
    expect(xwho(users)).toEqual(['a', 'b', 'dan'])
  })

  const FILES: [string, Record<string, string>, string, string[]][] = [
    ['user ids (an anonymous id finds its merged user)', { name: 'ids' }, 'a\nanon-d\nghost\n', ['a', 'dan']],
    ['values of a user property', { name: 'cities', property: 'city' }, 'Y\nZ\n', ['b']],
  ]
  for (const [name, fields, data, expected] of FILES) {
    it(`a file of ${name}`, async () => {
      const users = await expectSameFill(async () => {
        const res = await postForm(twins.server, '/uba/api/cohort/byfile', twins.house, form(fields, { name: 'f.csv', data }))
        expect(res.status, JSON.stringify(res.body)).toBe(200)
        // a file cohort is computed before the answer
        expect(res.body.userNumber).toBe(expected.length)
      })
      expect(xwho(users)).toEqual(expected)
    })
  }

  /** The values of a tag's version, sorted. */
  const values = (rows: unknown[][]) => rows.map((r) => String(r[2])).sort()
  const tagged = async (path: string, body: Record<string, unknown> | FormData) => {
    const res = body instanceof FormData ? await postForm(twins.server, path, twins.house, body) : await twins.server.call('POST', path, { headers: twins.house, body })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    await eventually(async () => {
      const tag = ((await twins.server.call('GET', '/uba/api/tags', { headers: twins.house })).body as any[]).find((t) => t.code === res.body.code)
      return tag.status !== 'calculating' && tag.versions.length >= 1
    })
  }

  it('a tag from rules (the first rule a user matches wins)', async () => {
    const rules = [{ value: 'vip', content: single(userRule('user.city', 'EQ', ['X'])) }, { value: 'buyer', content: single(pays('GTE', [1])) }]
    // a and e live in X (a also paid: vip wins), dan paid
    expect(values(await expectSameFill(() => tagged('/uba/api/tags', { name: 'Level', rules })))).toEqual(['buyer', 'vip', 'vip'])
  })

  it('a tag from a file (the login id\'s row wins over its anonymous id\'s)', async () => {
    const file = form({ name: 'Seg' }, { name: 'seg.csv', data: 'xwho,value\na,gold\nanon-d,silver\ndan,bronze\nghost,x\n' })
    expect(values(await expectSameFill(() => tagged('/uba/api/tags/byfile', file)))).toEqual(['bronze', 'gold'])
  })
})

import { describe, expect, it, vi } from 'vitest'
import { validateFilter } from '../../src-main/domain/expr/filters'
import type { PropertyLookup } from '../../src-main/domain/schema/lookup'
import { eventSql, resolveProperty, type EventRef } from '../../src-main/domain/expr/eventRefs'
import { filterSql } from '../../src-main/domain/expr/filterSql'
import { resolveBreakdown } from '../../src-main/domain/analysis/breakdown'
import { calendarSql } from '../../src-main/domain/analysis/calendarSql'
import { baseSql, type EventRequest } from '../../src-main/domain/analysis/events'
import { funnelScanSql, type FunnelQuery } from '../../src-main/domain/analysis/funnelSql'
import { retentionSql, windowOf } from '../../src-main/domain/analysis/retentionSql'
import type { RetentionRequest } from '../../src-main/domain/analysis/retentionRequest'
import type { AnalysisEnv } from '../../src-main/domain/analysis/runner'
import { factsSql } from '../../src-main/domain/analysis/userCounts'
import type { DataType } from '../../src-main/domain/schema/types'
import { printingDialect as d } from './printingDialect'

// The seam is real when the query builders load and print without DuckDB: importing either DuckDB
// or its dialect from them fails this file.
vi.mock('@duckdb/node-api', () => {
  throw new Error('a query builder imported @duckdb/node-api')
})
vi.mock('../../src-main/warehouse/duckdb/dialect', () => {
  throw new Error('a query builder imported the DuckDB dialect')
})

/** What DuckDB's dialect writes, and the test dialect never does. */
const DUCKDB_TEXT = [/bitstring_agg/, /bit_count/, /epoch_us/, /list_transform/, /list_has_any/, /\bhash\(/, /::/, /\$\d/, /date_trunc/, /strftime/, /strptime/, /datediff/, /to_days/, /TABLESAMPLE/, /\/\//, /\bunnest\(/, /current_setting/, /stats\(/, /"\w+"/]

function expectPrintedByTheTestDialect(sql: string): void {
  for (const pattern of DUCKDB_TEXT) expect(sql, `${pattern} in ${sql}`).not.toMatch(pattern)
}

const PLAN: Record<string, DataType> = { city: 'string', tags: 'array<string>', price: 'number', at: 'datetime', plan: 'string', vip: 'boolean' }
const lookup: PropertyLookup = (ref) => PLAN[ref.propertyId]
const columns = { event: new Set(['city', 'tags', 'price', 'at']), user: new Set(['plan', 'vip']) }
const env = { dialect: d, columns, nowLocal: d.localNow(1_700_000_000_000) } as AnalysisEnv

const event = (id: string): EventRef => ({ expression: `event.${id}`, eventId: id, kind: 'event', members: [{ eventId: id }] })
const filter = validateFilter(
  {
    relation: 'AND',
    conditions: [
      { expression: 'event.view.city', function: 'EQ', params: ['Paris', 'Lyon'] },
      { expression: 'event.view.tags', function: 'CONTAIN', params: ['new'] },
      { expression: 'event.view.at', function: 'RELATIVE_TIME_RANGE_CUURENT', params: [2, 0, 'week'] },
      { expression: 'event.view.at', function: 'ABSOLUTE_TIME', params: ['2024/01/01 00:00', '2024/01/31 23:59:59'] },
      { expression: 'user.plan', function: 'NOT_NULL' },
    ],
  },
  'filter',
  lookup,
)

describe('the Dialect seam: analyses print their SQL through whichever dialect they are given', () => {
  it('prints filters, event references and property columns with the test dialect', () => {
    const p = d.params()
    const sql = `${eventSql(event('view'), env, p)} AND ${filterSql(filter, env, p)}`
    expect(sql).toContain('e.xwhat = {p1:Dynamic}')
    expect(sql).toContain('e.`city` IN ({p2:Dynamic}, {p3:Dynamic})')
    expect(sql).toContain('arrayExists(x -> position(x, {p4:Dynamic}) > 0, e.`tags`)')
    expect(sql).toContain("toStartOfInterval(toDateTime64(1700000000, 3), INTERVAL 1 week) - toIntervalWeek({p5:Dynamic})")
    expect(sql).toContain('parseDateTime({p7:Dynamic}, {p8:Dynamic})')
    expect(sql).toContain('u.`plan` IS NOT NULL')
    expect(p.values).toEqual(['view', 'Paris', 'Lyon', 'new', 2, -1, '2024/01/01 00:00', '%Y/%m/%d %H:%i', '2024/01/31 23:59:59', '%Y/%m/%d %H:%i:%s'])
    expectPrintedByTheTestDialect(sql)
  })

  it('reads a property the plan knows but no data has filled as NULL of its type, in the dialect\'s words', () => {
    const missing = resolveProperty('event.view.later', 'x', () => 'number', columns)
    expect(missing.column).toEqual({ table: 'event_vd', row: 'e', column: null, type: 'number' })
    expect(d.columnOf(missing.column)).toBe("CAST(NULL, 'Nullable(Float64)')")
    const who = resolveProperty('user.xwho', 'x', () => 'string', columns)
    expect(d.columnOf(who.column)).toBe('e.xwho')
  })

  it('builds an event analysis scan with the test dialect: calendar, sampling, breakdown labels, user counts', () => {
    const req: EventRequest = {
      measures: [{ name: 'views', event: event('view'), property: resolveProperty('event.view.price', 'p', lookup, columns), aggregator: 'SUM', filter }],
      fromDate: '2024-01-01',
      toDate: '2024-01-14',
      unit: 'WEEK',
      sampling: 0.5,
      crowds: ['$ALL'],
      byFields: [resolveBreakdown({ expression: 'event.view.tags' }, 'byFields[0]', lookup, columns), resolveBreakdown({ expression: 'event.view.at' }, 'byFields[1]', lookup, columns)],
      limit: 10,
      formula: null,
      compare: null,
    }
    const p = d.params()
    const sql = baseSql(env, req, p)
    expect(sql).toContain('toYYYYMMDD(d) AS ds')
    expect(sql).toMatch(/intDiv\(CAST\(dateDiff\('day', CAST\(\{p\d+:Dynamic\}, 'Date'\), toStartOfInterval\(d, INTERVAL 1 week\)\), 'Int32'\), 7\) AS period/)
    expect(sql).toContain('cityHash64(e.distinct_id) % 10000 < 5000')
    expect(sql).toContain('arrayJoin(if(notEmpty(e.`tags`), e.`tags`, [NULL]))')
    expect(sql).toContain("formatDateTime(e.`at`, '%F %T')")
    expect(sql).toContain('e.`price` AS v0')
    expectPrintedByTheTestDialect(sql)
    const facts = factsSql(req.byFields, d)
    expect(facts).toContain("getSetting('max_threads') AS threads")
    expectPrintedByTheTestDialect(facts)
  })

  it('builds the funnel scan with the test dialect: step masks, times, labels of a list breakdown', () => {
    const q: FunnelQuery = {
      steps: [{ expression: 'event.view', event: event('view'), filter }, { expression: 'event.buy', event: event('buy') }],
      fromDate: '2024-01-01',
      toDate: '2024-01-07',
      sampling: 0.25,
      crowds: ['$ALL'],
      byField: resolveBreakdown({ expression: 'event.view.tags' }, 'byField', lookup, columns),
      byStep: 0,
      windowSeconds: 86400,
      order: 'LOOSE' as FunnelQuery['order'],
      exclusions: [],
    }
    const p = d.params()
    const sql = funnelScanSql(q, env, p, { lo: 1, hi: 1000 })
    expect(sql).toContain("CAST(toUnixTimestamp64Micro(e.xwhen), 'Float64') AS t")
    expect(sql).toContain("CAST((e.distinct_id - {p")
    // step 0's bit: its filter, shifted by 0; step 1 (no filter) is 2 outright
    expect(sql).toMatch(/WHEN \{p\d+:Dynamic\} THEN toUInt64\(\(bitShiftLeft\(CAST\(COALESCE\(.*, false\), 'Int32'\), 0\)\)\) WHEN \{p\d+:Dynamic\} THEN toUInt64\(2\)/)
    expect(sql).toContain('arrayMap(x -> COALESCE(x, {p')
    expect(sql).toContain('cityHash64(e.distinct_id) % 10000 < 2500')
    expectPrintedByTheTestDialect(sql)
  })

  it('builds every retention statement with the test dialect: bitmaps, per-user pairs and measures', () => {
    const base: RetentionRequest = {
      firstEvent: { event: event('signup') },
      secondEvent: { event: event('view'), filter },
      fromDate: '2024-01-01',
      toDate: '2024-01-03',
      unit: 'DAY',
      duration: 3,
      breakdown: null,
      measure: null,
      sampling: 1,
      crowds: ['$ALL'],
      limit: 10,
      mode: 'onOrAfter',
      firstTime: true,
    }
    const by = { by: resolveBreakdown({ expression: 'user.plan' }, 'byField', lookup, columns), side: 'user' as const }
    const requests: [RetentionRequest, number | null][] = [
      [base, null],
      [{ ...base, breakdown: by }, 3],
      [{ ...base, breakdown: by }, null],
      [{ ...base, mode: 'on', measure: { property: resolveProperty('event.view.city', 'm', lookup, columns), aggregator: 'REMOVE_DUMPLICATE' } }, null],
    ]
    for (const [req, labels] of requests) {
      const sql = retentionSql(env, req, windowOf(req), 5000, labels, d.params())
      expectPrintedByTheTestDialect(sql)
    }
    const [plain, byBitmaps, byPairs, measured] = requests.map(([req, labels]) => retentionSql(env, req, windowOf(req), 5000, labels, d.params()))
    expect(plain).toContain('bitmapCardinality(groupBitmapMergeState(fb))')
    expect(plain).toContain('bitmapAnd(a.fb, b.rb)')
    expect(byBitmaps).toContain('intDiv(uid, {p')
    expect(byPairs).toContain('groupBitOr(km)')
    expect(byPairs).toMatch(/\(SELECT number AS b FROM numbers\(0, \{p\d+:Dynamic\} - 0\)\) t/)
    expect(measured).toContain("length(arrayDistinct(arrayFlatten(groupArrayIf(vs, vs IS NOT NULL))))")
    expect(measured).toContain('rt.* EXCEPT (uid)')
  })

  it('builds a calendar of days with the dialect alone', () => {
    const p = d.params()
    const sql = calendarSql('2024-01-30', '2024-02-02', 'MONTH', p, d)
    expect(sql).toContain("CAST(dateDiff('month', CAST({p1:Dynamic}, 'Date'), toStartOfInterval(d, INTERVAL 1 month)), 'Int32')")
    expect(p.values).toEqual(['2024-01-01', '2024-01-30', '2024-02-03'])
    expectPrintedByTheTestDialect(sql)
  })
})

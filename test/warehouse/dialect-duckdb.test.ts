import { describe, expect, it } from 'vitest'
import { duckdbDialect as d } from '../../src-main/warehouse/duckdb/dialect'

/** DuckDB's parts print the SQL the analyses wrote before the dialect existed (the same plans, the same speed). */
describe('the DuckDB dialect', () => {
  it('binds values as $1, $2 ... in the order they are added', () => {
    const p = d.params()
    expect([p.add('a'), p.list([1, 2]), p.add(null)]).toEqual(['$1', '$2, $3', '$4'])
    expect(p.values).toEqual(['a', 1, 2, null])
  })

  it('quotes checked ids only, and reads a missing column as NULL of its type', () => {
    expect(d.columnOf({ table: 'event_vd', row: 'e', column: '$city', type: 'string' })).toBe('e."$city"')
    expect(d.columnOf({ table: 'event_vd', row: 'e', column: 'xwho', type: 'string', base: true })).toBe('e.xwho')
    expect(d.columnOf({ table: 'profile_vd', row: 'u', column: null, type: 'array<string>' })).toBe('NULL::VARCHAR[]')
    expect(() => d.ident('a"; DROP TABLE event_vd; --')).toThrow(/not a checked identifier/)
    expect(d.cast('x', 'integer')).toBe('CAST(x AS INTEGER)')
  })

  it('counts users by bitmaps and samples them by a hash of the id', () => {
    expect(d.bitmapUsers('distinct_id', 'm0')).toBe('COALESCE(bit_count(bitstring_agg(distinct_id) FILTER (WHERE m0)), 0)')
    expect(d.bitmapIn('uid % $1', '$2')).toBe('bitstring_agg(CAST(uid % $1 AS INTEGER), 0, $2)')
    expect(d.distinctCount('distinct_id', 'm1')).toBe('count(DISTINCT distinct_id) FILTER (WHERE m1)')
    expect(d.userSample(0.25, 'e.distinct_id')).toBe('(hash(e.distinct_id) % 10000) < 2500')
    expect(d.userSample(1, 'e.distinct_id')).toBe('true')
    expect(d.tableSample(1.5)).toBe(' TABLESAMPLE 1.500000% (system)')
    expect(d.tableSample(100)).toBe('')
  })

  it('reads the approximate distinct count out of stats() text', () => {
    expect(d.approxDistinct('[Min: a, Max: z][Has Null: false, Has No Null: true][Approx Unique: 42]')).toBe(42)
    expect(d.approxDistinct(null)).toBeNull()
  })

  it('writes local time in the session time zone', () => {
    const p = d.params()
    expect(d.parseStamp(p, '2024/01/31 23:59:59')).toBe('strptime($1, $2)')
    expect(p.values).toEqual(['2024/01/31 23:59:59', '%Y/%m/%d %H:%M:%S'])
    expect(d.localNow(1_700_000_000_000)).toBe('CAST(to_timestamp(1700000000) AS TIMESTAMP)')
    expect(d.periodStart('week', 'd')).toBe("date_trunc('week', d)")
    expect(d.interval('$3', 'day')).toBe('to_days(CAST($3 AS INTEGER))')
  })

  it('writes lists with lambdas over x', () => {
    expect(d.some('e."tags"', (x) => `contains(${x}, $1)`)).toBe('list_bool_or(list_transform(e."tags", x -> contains(x, $1)))')
    expect(d.unnest(d.orNullElement('v'))).toBe('unnest(CASE WHEN len(v) > 0 THEN v ELSE [NULL::VARCHAR] END)')
  })
})

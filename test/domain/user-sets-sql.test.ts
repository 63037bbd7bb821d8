import { describe, expect, it } from 'vitest'
import { duckdbDialect as d } from '../../src-main/warehouse/duckdb/dialect'
import { noMembers, userPropertySql } from '../../src-main/domain/userSets/fileMatch'
import { sequenceSql } from '../../src-main/domain/people/sequenceQuery'
import { printingDialect } from '../warehouse/printingDialect'

// The userSets part of the dialect prints what cohorts, tags and people wrote themselves before
// the seam: the same SQL text, now written once, in the warehouse layer.

describe('the DuckDB userSets part', () => {
  it('prints the statements of cohort and tag tables as they were written', () => {
    expect(d.replaceTable('cohort_c1', 'SELECT 1')).toEqual(['CREATE OR REPLACE TABLE cohort_c1 AS SELECT 1'])
    expect(d.firstBy('f.label', ['e.xwho IN (SELECT original_id FROM user_aliases)', 'e.xwho'])).toBe(
      'arg_min(f.label, (e.xwho IN (SELECT original_id FROM user_aliases), e.xwho))',
    )
    expect(`(version ${d.typeName('integer')} NOT NULL, distinct_id ${d.typeName('bigint')} NOT NULL, value ${d.typeName('string')})`).toBe(
      '(version INTEGER NOT NULL, distinct_id BIGINT NOT NULL, value VARCHAR)',
    )
    expect(d.tableCount('user_ids')).toBe("SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'main' AND table_name = 'user_ids'")
  })

  it('binds uploaded values as lists, never as SQL text', () => {
    const plain = d.valuesTable('file_values', ["a'; DROP TABLE x; --", 'b'])
    expect(plain.sql).toBe('CREATE OR REPLACE TEMP TABLE file_values AS SELECT DISTINCT unnest($1::VARCHAR[]) AS value')
    expect(plain.values).toHaveLength(1)
    const labelled = d.valuesTable('file_values', ['u1', 'u2'], ['gold', 'silver'])
    expect(labelled.sql).toBe('CREATE OR REPLACE TEMP TABLE file_values AS SELECT unnest($1::VARCHAR[]) AS value, unnest($2::VARCHAR[]) AS label')
    expect(labelled.values).toHaveLength(2)
  })

  it('binds a list of user ids as one value after the others', () => {
    const p = d.params()
    const sql = `version = ${p.add(3)} AND ${d.inIds('distinct_id', [4, 9], p)}`
    expect(sql).toBe('version = $1 AND distinct_id IN (SELECT unnest($2::BIGINT[]))')
    expect(p.values).toEqual([3, '[4,9]'])
  })

  it('prints the times and order of a behaviour sequence', () => {
    expect(d.formatSlashed('e.xwhen')).toBe("strftime(e.xwhen, '%Y/%m/%d %H:%M:%S')")
    expect(d.epochMillis('e.xwhen')).toBe('epoch_ms(e.xwhen)')
    expect(d.storedOrder('e')).toBe('e.rowid')
  })
})

describe('user-set SQL of the domain, printed by the dialect', () => {
  it('keeps the empty members select and the file property columns of before', () => {
    expect(noMembers(d)).toBe('SELECT CAST(NULL AS BIGINT) AS distinct_id, CAST(NULL AS VARCHAR) AS xwho WHERE false')
    const columns = { event: new Set<string>(), user: new Set(['plan']) }
    expect(userPropertySql(d, 'plan', columns)).toEqual({ sql: 'u."plan"', profile: true })
    expect(userPropertySql(d, 'xwho', columns)).toEqual({ sql: 'e.xwho', profile: false })
    expect(userPropertySql(d, 'city', columns)).toBeNull()
  })
})

describe('user-set SQL of the domain through another dialect', () => {
  it('writes every engine piece of a behaviour sequence through the dialect it is given', () => {
    const p = printingDialect.params()
    const scope = { dialect: printingDialect, columns: { event: new Set<string>(), user: new Set<string>() }, nowLocal: 'now()' }
    const fields = { fromDate: '2024-01-01', toDate: '2024-01-02', events: null }
    const sql = sequenceSql(7, fields, scope, p, (xwhen) => printingDialect.formatSlashed(xwhen), 100).replace(/\s+/g, ' ')
    expect(sql).toContain("formatDateTime(e.xwhen, '%Y/%m/%d %T') AS \"#time\", e.* EXCEPT (distinct_id, xwho, xwhat, xwhen, ds)")
    expect(sql).toContain('ORDER BY e.xwhen DESC, e.xwhat, e._part_offset DESC LIMIT {p4:Dynamic}')
    expect(p.values).toEqual([7, 20240101, 20240102, 100])
    expect(sql).not.toMatch(/strftime|EXCLUDE|rowid|\$[0-9]/)
    expect(noMembers(printingDialect)).toBe("SELECT CAST(NULL, 'Int64') AS distinct_id, CAST(NULL, 'String') AS xwho WHERE false")
  })
})

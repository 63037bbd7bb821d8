import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { identityChecks, notesList, problemCase, propertyChecks, type PropertyPlan } from '../../src-main/domain/ingest/norm'
import { duckdbDialect as d } from '../../src-main/warehouse/duckdb/dialect'
import { printingDialect } from './printingDialect'

/**
 * The records and loads parts: DuckDB's text computes what the collector's parse and the loads
 * read (run here on an in-memory database), and the record checks are built with the printing
 * dialect alone.
 */
let db: DuckDBInstance
let conn: DuckDBConnection
beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:')
  conn = await db.connect()
})
afterAll(() => {
  conn.closeSync()
  db.closeSync()
})

const one = async (expr: string, line: string | null = null) => (await conn.runAndReadAll(`SELECT ${expr} FROM (SELECT $1::VARCHAR AS line)`, [line])).getRowsJS()[0][0]

describe("the DuckDB records part reads a record's JSON", () => {
  it('tells blank lines, members, keys and kinds, and a line that is not JSON reads as NULL', async () => {
    expect([await one(d.notBlank('line'), '   '), await one(d.notBlank('line'), '{}'), await one(d.notBlank('line'), ' x')]).toEqual([false, true, true])
    const line = '{"xwhat":"pay","xcontext":{"a":1,"$b":"x"}}'
    expect(await one(d.jsonMember('line', 'xwhat'), line)).toBe('"pay"')
    expect(await one(d.jsonKeys('line', 'xcontext'), line)).toEqual(['a', '$b'])
    expect(await one(d.jsonMembers('line', 'xcontext', ['$b', 'c', 'a']), line)).toEqual(['"x"', null, '1'])
    expect(await one(d.jsonMemberString('line', ['xcontext', '$b']), line)).toBe('x')
    expect(await one(`${d.jsonMemberKind('line', 'xcontext')} = ${d.jsonKindName('object')}`, line)).toBe(true)
    expect(await one(`${d.jsonKindOfText('line')} = ${d.jsonKindName('array')}`, '[1]')).toBe(true)
    expect(await one(d.jsonKindOfText('line'), '{nope')).toBeNull()
    expect(await one(d.jsonMember('line', 'xwhat'), '{nope')).toBeNull()
    expect(await one(d.jsonString(d.jsonMember('line', 'xwhat')), line)).toBe('pay')
  })

  it('parses a record once into its members, each as JSON text', async () => {
    const parsed = d.parseRecord('line', ['xwho', 'xwhen'], 'xcontext', ['n', '$k'])
    const line = '{"xwho":"u1","xwhen":1700000000000,"xcontext":{"n":2.5}}'
    expect(await one(d.asJsonText(d.recordField(parsed, 'xwho')), line)).toBe('"u1"')
    expect(await one(d.asJsonText(d.recordMember(parsed, 'xcontext', 1)), line)).toBe('2.5')
    expect(await one(d.recordMember(parsed, 'xcontext', 2), line)).toBeNull()
    // keys that differ only in case are two members
    const cased = d.parseRecord('line', [], 'xcontext', ['N', 'n'])
    expect(await one(d.asJsonText(d.recordMember(cased, 'xcontext', 2)), '{"xcontext":{"n":1}}')).toBe('1')
    expect(await one(d.epochMillisText('line'), '1700000000000')).toBeInstanceOf(Date)
    expect(await one(d.tryCast('line', 'number'), 'x')).toBeNull()
    expect(await one(d.firstWhere("['ok', 'b-ad', 'c-d']", (k) => `NOT ${d.matches(k, "'[a-z]+'")}`))).toBe('b-ad')
    expect(await one(d.includes("['a', 'b']", "'b'"))).toBe(true)
  })
})

describe('the DuckDB loads part', () => {
  it("keeps a record's problems without the NULLs, and reads their fields", async () => {
    const list = d.problemList([d.problem('age', "'x'", "is not a number"), 'NULL', d.problem("it's", 'NULL', 'r')])
    expect(await one(`len(${list})`)).toBe(2n)
    expect(await one(d.problemField(`${list}[1]`, 'reason'))).toBe('is not a number')
    expect(await one(d.problemField(`${list}[2]`, 'property'))).toBe("it's")
    expect(await one(`${d.noProblem()} IS NULL AND ${d.noProblems()} IS NULL`)).toBe(true)
  })

  it('aggregates the profile operations in time order, leaving out missing values', async () => {
    const rows = "(VALUES (1, 1, 'a', ['x']), (2, 1, NULL, NULL), (3, 2, 'c', ['y', 'z']), (0, 9, 'z', []), (4, 0, NULL, NULL)) t(xwhen, _row, v, l)"
    const r = (await conn.runAndReadAll(`SELECT ${d.lastPresent('v', ['xwhen', '_row'])}, ${d.firstPresent('v', ['xwhen', '_row'])}, ${d.joinListsInOrder('l', ['xwhen', '_row'])},
      ${d.anyTrue('v IS NULL')}, ${d.appendList(d.emptyList(), "['q']")} FROM ${rows}`)).getRowsJS()[0]
    expect(r).toEqual(['c', 'z', ['x', 'y', 'z'], true, ['q']])
  })
})

describe('the record checks with the printing dialect', () => {
  it('build the problem of a record without DuckDB text', () => {
    const plan: PropertyPlan = { id: 'tags', type: 'array<string>', isNew: false, read: { value: '__v0', misfit: (c) => `${c} IS NULL` }, rawText: '__t0' }
    const checks = [...identityChecks(printingDialect, 'xwho', 'xwhat', 'xwhen', 'raw', 'sdk'), ...propertyChecks(printingDialect, plan, '__v0')]
    const sql = `${problemCase(printingDialect, checks)} ${notesList(printingDialect, checks)}`
    expect(sql).toContain("tuple('xwho', left(CAST(''")
    expect(sql).toContain('arrayFilter(x -> isNotNull(x)')
    expect(sql).toContain('arrayExists(x -> length(x) > 255, __v0)')
    expect(sql).not.toMatch(/struct_pack|regexp_full_match|list_|::|len\(/)
  })
})

import type { ValueType } from '../../dialect'
import type { TableColumn, TablesPart } from '../../parts/tables'
import { quoteString } from '../literal'
import { CH_TYPES, ident } from './names'

/**
 * Tables the domain defines, on 18.16 and current versions. 18.16 keeps no table comments, so a
 * table's comment is a hidden column (MATERIALIZED: not in SELECT *, not written by inserts)
 * whose expression is the comment's text; the catalog queries read it back and never list it.
 */
export const COMMENT_COLUMN = '_uba_comment'

/**
 * A stored column's type: a datetime is epoch ms of its wall-clock time (Int64), as the executor
 * stores properties (writes.ts) and `columnOf` reads them; DateTime would keep seconds only, and
 * appended values (ms) would not fit it.
 */
const storedType = (type: TableColumn['type']) => (type === 'datetime' ? 'Int64' : CH_TYPES[type])
const nullableStored = (type: TableColumn['type']) => (type === 'array<string>' ? storedType(type) : `Nullable(${storedType(type)})`)
const columnType = (c: TableColumn) => (c.notNull ? storedType(c.type) : nullableStored(c.type))

/** The property type a ClickHouse column type stands for (Nullable and LowCardinality looked through). */
export function valueTypeOf(engineType: string): ValueType {
  const t = engineType.replace(/^(Nullable|LowCardinality)\((.*)\)$/, '$2').replace(/^(Nullable|LowCardinality)\((.*)\)$/, '$2')
  if (t.startsWith('Array(')) return 'array<string>'
  if (t === 'UInt8') return 'boolean'
  // the product stores a datetime as Int64 epoch ms (its numbers are Float64; base columns are never asked)
  if (t === 'Int64') return 'datetime'
  if (t.startsWith('DateTime') || t === 'Date') return 'datetime'
  if (t === 'String' || t.startsWith('FixedString')) return 'string'
  return 'number'
}

/** Staged columns are named `_uba_c<i>` / `_uba_g<i>` (given), apart from any checked column id. */
const STAGING = '_uba_staged_rows'

/**
 * A datetime column of the table as the rebuilt table takes it (epoch ms, Int64). A table made
 * before datetimes were stored so has a DateTime column there, into which 18.16 had parsed the
 * app's epoch ms as seconds and kept them modulo 2^32 (measured; docs/clickhouse.md, "Dimension
 * tables from before"): the value cannot be told from any other 2^32 ms (49.7 days) apart, so it
 * goes as NULL (unknown); a relation column keeps the stored value as ms (its rows stay apart).
 * `toTypeName` is a constant: a column already Int64 goes as it is.
 */
function storedMillis(c: TableColumn, keys: string[]): string {
  const col = ident(c.id)
  if (c.type !== 'datetime') return col
  return `if(toTypeName(${col}) LIKE '%DateTime%', ${keys.includes(c.id) ? `toInt64(${col}) * 1000` : 'NULL'}, toInt64(${col}))`
}

/**
 * An upsert as 18.16 can write it: the table is rebuilt beside (rows whose key is not staged as
 * they are; rows whose key is staged with each given value; staged rows with a new key) and
 * swapped in by one RENAME, so a reader sees the old rows or the new ones. The rebuilt table's
 * datetime columns are Int64 epoch ms whatever the old table had (see storedMillis): a table
 * from before is converted by its next write, in that same swap.
 */
function upsertByRebuild(name: string, columns: TableColumn[], keys: string[], table: TableColumn[]) {
  const t = ident(name)
  const next = ident(`${name}__next`)
  const old = ident(`${name}__old`)
  // relation columns are NOT NULL (createTable), the others Nullable
  const retype = table.filter((c) => c.type === 'datetime').map((c) => `ALTER TABLE ${next} MODIFY COLUMN ${ident(c.id)} ${keys.includes(c.id) ? 'Int64' : 'Nullable(Int64)'}`)
  const staged = columns.map((c, i) => ({ id: c.id, col: `_uba_c${i}`, given: `_uba_g${i}`, type: c.type }))
  const defs = staged.flatMap((c) => [`${c.col} ${nullableStored(c.type)}`, `${c.given} UInt8`])
  const keyed = staged.filter((c) => keys.includes(c.id))
  // one key is compared as itself: current versions do not match tuple(x) against a one-column subquery
  const row = (cols: string[]) => (cols.length === 1 ? cols[0] : `(${cols.join(', ')})`)
  const keyTuple = row(keys.map((k) => storedMillis(table.find((c) => c.id === k) ?? { id: k, type: 'string' }, keys)))
  const stagedKeys = `(SELECT ${keyed.map((c) => c.col).join(', ')} FROM ${STAGING})`
  const merged = table.map((col) => {
    const s = staged.find((c) => c.id === col.id)
    return !s || keys.includes(col.id) ? storedMillis(col, keys) : `if(${s.given} != 0, ${s.col}, ${storedMillis(col, keys)})`
  })
  const kept = table.map((c) => storedMillis(c, keys))
  // the join's right side names each key as the table does (USING), the rest apart; current versions want its alias
  const right = `(SELECT ${staged.map((c) => (keys.includes(c.id) ? `${c.col} AS ${ident(c.id)}` : `${c.col}, ${c.given}`)).join(", ")} FROM ${STAGING}) AS _uba_s`
  const all = table.map((c) => ident(c.id)).join(', ')
  return {
    stage: `CREATE TEMPORARY TABLE ${STAGING} (${defs.join(', ')}) ENGINE = Memory`,
    staging: STAGING,
    apply: [
      `DROP TABLE IF EXISTS ${next}`,
      `CREATE TABLE ${next} AS ${t}`,
      ...retype,
      `INSERT INTO ${next} (${all}) SELECT ${kept.join(', ')} FROM ${t} WHERE ${keyTuple} NOT IN ${stagedKeys}`,
      `INSERT INTO ${next} (${all}) SELECT ${merged.join(', ')} FROM ${t} ALL INNER JOIN ${right} USING (${keys.map(ident).join(', ')})`,
      `INSERT INTO ${next} (${staged.map((c) => ident(c.id)).join(', ')}) SELECT ${staged.map((c) => c.col).join(', ')} FROM ${STAGING} WHERE ${row(keyed.map((c) => c.col))} NOT IN (SELECT ${keys.map(ident).join(', ')} FROM ${t})`,
      `RENAME TABLE ${t} TO ${old}, ${next} TO ${t}`,
      `DROP TABLE ${old}`,
      `DROP TEMPORARY TABLE ${STAGING}`,
    ],
  }
}

const catalog = (name: string) => `database = currentDatabase() AND name = ${quoteString(name)}`

export const tables: TablesPart = {
  tableOrView: (name) => ({
    // the comment column's expression is the quoted text ('...'); a view has none (NULL)
    sql: `SELECT if(engine = 'View', NULL, (SELECT replaceRegexpAll(any(default_expression), '^\\\\\\'|\\\\\\'$', '') FROM system.columns WHERE database = currentDatabase() AND table = ${quoteString(name)} AND name = '${COMMENT_COLUMN}'))
     FROM system.tables WHERE ${catalog(name)}`,
    values: [],
  }),
  tableColumns: (name) => ({
    // system.columns lists a table's columns in their order (18.16 has no position column)
    sql: `SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = ${quoteString(name)} AND name != '${COMMENT_COLUMN}'`,
    values: [],
  }),
  valueTypeOf,
  rowCount: (name) => `SELECT count() FROM ${ident(name)}`,
  createTable: (name, columns) => `CREATE TABLE ${ident(name)} (${columns.map((c) => `${ident(c.id)} ${columnType(c)}`).join(', ')}) ENGINE = MergeTree ORDER BY tuple()`,
  commentOn: (name, comment) => `ALTER TABLE ${ident(name)} ADD COLUMN \`${COMMENT_COLUMN}\` String MATERIALIZED ${quoteString(comment)}`,
  addColumn: (name, c) => `ALTER TABLE ${ident(name)} ADD COLUMN ${ident(c.id)} ${columnType(c)}`,
  dropTable: (name, ifExists) => `DROP TABLE ${ifExists ? 'IF EXISTS ' : ''}${ident(name)}`,
  clearTable: (name) => `TRUNCATE TABLE ${ident(name)}`,
  upsert(name, columns, keys, table) {
    // a row left out keeps the table's other columns: without UPDATE ... FROM or SELECT * EXCEPT
    // (18.16), the rebuild must name every column of the table
    if (!table) throw new Error('updating dimension table rows on ClickHouse needs every column of the table')
    return upsertByRebuild(name, columns, keys, table)
  },
  // 18.16 has no ADD COLUMN IF NOT EXISTS: the executor adds only columns system.columns lacks
  addPropertyColumn: (table, c) => `ALTER TABLE ${table} ADD COLUMN ${ident(c.id)} ${columnType(c)}`,
  retypePropertyColumn: (table, c) => `ALTER TABLE ${table} MODIFY COLUMN ${ident(c.id)} ${columnType(c)}`,
}

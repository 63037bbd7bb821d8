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

const columnType = (c: TableColumn) => (c.notNull || c.type === 'array<string>' ? CH_TYPES[c.type] : `Nullable(${CH_TYPES[c.type]})`)

/** The property type a ClickHouse column type stands for (Nullable and LowCardinality looked through). */
export function valueTypeOf(engineType: string): ValueType {
  const t = engineType.replace(/^(Nullable|LowCardinality)\((.*)\)$/, '$2').replace(/^(Nullable|LowCardinality)\((.*)\)$/, '$2')
  if (t.startsWith('Array(')) return 'array<string>'
  if (t === 'UInt8') return 'boolean'
  if (t.startsWith('DateTime') || t === 'Date') return 'datetime'
  if (t === 'String' || t.startsWith('FixedString')) return 'string'
  return 'number'
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
  upsert() {
    // a row left out keeps the table's other columns, which a rebuild on 18.16 (no UPDATE ... FROM,
    // no SELECT * EXCEPT) cannot name without the table's whole column list
    throw new Error('updating dimension table rows is not available on ClickHouse yet: replace the table instead')
  },
  // 18.16 has no ADD COLUMN IF NOT EXISTS: the executor adds only columns system.columns lacks
  addPropertyColumn: (table, c) => `ALTER TABLE ${table} ADD COLUMN ${ident(c.id)} ${columnType(c)}`,
  retypePropertyColumn: (table, c) => `ALTER TABLE ${table} MODIFY COLUMN ${ident(c.id)} ${columnType(c)}`,
}

/** The base tables of a project (chexec22 may create them from here): see docs/clickhouse.md. */
export const BASE_TABLES_DDL = [
  `CREATE TABLE IF NOT EXISTS event_vd (
     distinct_id Int64,
     xwho String,
     xwhat String,
     xwhen Int64,
     ds UInt32
   ) ENGINE = MergeTree PARTITION BY intDiv(ds, 100) ORDER BY (xwho, xwhen)`,
  `CREATE TABLE IF NOT EXISTS profile_vd (
     distinct_id Int64,
     xwho String
   ) ENGINE = MergeTree ORDER BY distinct_id`,
]

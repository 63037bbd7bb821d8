import type { BoundValue } from '../../src-main/warehouse'
import type { Dialect, SqlParams, SqlType } from '../../src-main/warehouse/dialect'
import { outcomes as clickhouseOutcomes } from '../../src-main/warehouse/clickhouse/parts/outcomes'

/**
 * A second Dialect, for tests only: it prints a ClickHouse-flavoured SQL (named placeholders
 * `{p1:Dynamic}`, backquoted identifiers, -If aggregate combinators, arrayMap...). It never runs:
 * it shows that the analyses' query builders write every engine piece through the Dialect.
 */
class NamedParams implements SqlParams {
  readonly values: BoundValue[] = []

  add(value: BoundValue): string {
    this.values.push(value)
    return `{p${this.values.length}:Dynamic}`
  }

  list(values: (string | number)[]): string {
    return values.map((v) => this.add(v)).join(', ')
  }
}

const TYPES: Record<SqlType, string> = {
  string: 'String',
  number: 'Float64',
  boolean: 'Bool',
  datetime: 'DateTime64(3)',
  'array<string>': 'Array(String)',
  integer: 'Int32',
  bigint: 'Int64',
  date: 'Date',
  instant: "DateTime64(3, 'UTC')",
}

const ifWhere = (agg: string, args: string, where?: string) => (where === undefined ? `${agg}(${args})` : `${agg}If(${args}, ${where})`)
const ident = (id: string) => `\`${id}\``

export const printingDialect: Dialect = {
  params: () => new NamedParams(),
  ident,
  typeName: (type) => TYPES[type],
  cast: (expr, type) => `CAST(${expr}, '${TYPES[type]}')`,
  nullOf: (type) => `CAST(NULL, 'Nullable(${TYPES[type]})')`,
  record: (columns, alias) => `tuple(${columns.join(', ')}) AS ${alias}`,
  columnOf: (ref) => (ref.column === null ? `CAST(NULL, 'Nullable(${TYPES[ref.type]})')` : `${ref.row}.${ref.base ? ref.column : ident(ref.column)}`),

  localNow: (ms) => `toDateTime64(${ms / 1000}, 3)`,
  localTime: (instant) => `toTimeZone(${instant}, tz())`,
  periodStart: (unit, local) => `toStartOfInterval(${local}, INTERVAL 1 ${unit})`,
  diff: (unit, from, to) => `dateDiff('${unit}', ${from}, ${to})`,
  interval: (n, unit) => `toInterval${unit[0].toUpperCase()}${unit.slice(1)}(${n})`,
  dayNumber: (date) => `toYYYYMMDD(${date})`,
  formatStamp: (local) => `formatDateTime(${local}, '%F %T')`,
  parseStamp: (p, text) => `parseDateTime(${p.add(text)}, ${p.add(text.length > 16 ? '%Y/%m/%d %H:%i:%s' : '%Y/%m/%d %H:%i')})`,
  days: (from, to) => `(SELECT arrayJoin(arrayMap(i -> ${from} + i, range(dateDiff('day', ${from}, ${to})))) AS d)`,
  epochMicros: (instant) => `toUnixTimestamp64Micro(${instant})`,

  distinctCount: (expr, where) => ifWhere('uniqExact', expr, where),
  bitmapOf: (id, where) => ifWhere('groupBitmapState', id, where),
  bitmapIn: (id, max) => `groupBitmapState(toUInt32(${id} + 0 * ${max}))`,
  bitmapCount: (bitmap) => `bitmapCardinality(${bitmap})`,
  bitmapAnd: (a, b) => `bitmapAnd(${a}, ${b})`,
  bitmapUnion: (bitmap) => `groupBitmapMergeState(${bitmap})`,
  bitmapsSpanIds: true,
  bitmapUsers: (id, where) => `groupBitmapIf(${id}, ${where})`,
  columnStats: (column, table) => `(SELECT uniq(${column}) FROM ${table})`,
  approxDistinct: (stats) => (typeof stats === 'number' ? stats : null),
  threads: () => `getSetting('max_threads')`,

  userSample: (factor, id) => (factor >= 1 ? 'true' : `cityHash64(${id}) % 10000 < ${Math.round(factor * 10000)}`),
  tableSample: (percent) => (percent < 100 ? ` SAMPLE ${percent / 100}` : ''),
  valueCounts: (q) => `SELECT v, count() AS n FROM (SELECT ${q.spread} AS v FROM (SELECT ${q.value} AS x FROM ${q.from})) GROUP BY v WITH TOTALS LIMIT ${q.limit}`,

  list: (items) => `array(${items.join(', ')})`,
  numberList: (placeholder) => `CAST(${placeholder}, 'Array(Float64)')`,
  hasAny: (list, items) => `hasAny(${list}, ${items})`,
  some: (list, test) => `arrayExists(x -> ${test('x')}, ${list})`,
  listMissing: (list, missing) => `${missing ? 'empty' : 'notEmpty'}(${list})`,
  map: (list, map) => `arrayMap(x -> ${map('x')}, ${list})`,
  orNullElement: (list) => `if(notEmpty(${list}), ${list}, [NULL])`,
  distinctElements: (list) => `arrayDistinct(${list})`,
  length: (list) => `length(${list})`,
  unnest: (list) => `arrayJoin(${list})`,
  collectDistinct: (expr, where) => `groupUniqArrayIf(${expr}, ${where})`,
  concatLists: (expr, where) => `arrayFlatten(groupArrayIf(${expr}, ${where}))`,

  contains: (text, part) => `position(${text}, ${part}) > 0`,
  endsWith: (text, part) => `endsWith(${text}, ${part})`,
  asText: (value, type) => (type === 'datetime' ? `formatDateTime(${value}, '%F %T')` : `toString(${value})`),

  intDiv: (a, b) => `intDiv(${a}, ${b})`,
  bitOr: (values) => values.map((v) => `toUInt64(${v})`).reduce((a, b) => `bitOr(${a}, ${b})`),
  bitAnd: (a, b) => `bitAnd(${a}, ${b})`,
  shiftLeft: (a, n) => `bitShiftLeft(${a}, ${n})`,
  shiftRight: (a, n) => `bitShiftRight(${a}, ${n})`,
  bitOrAgg: (a) => `groupBitOr(${a})`,
  series: (from, to) => `range(${from}, ${to})`,
  seriesTable: (from, to, name, column) => `(SELECT number AS ${column} FROM numbers(${from}, ${to} - ${from})) ${name}`,
  quantile: (v, q) => `quantileExact(${q})(${v})`,
  every: (condition) => `min(${condition})`,

  anyValue: (expr) => `any(${expr})`,
  groupByAll: (columns) => `GROUP BY ${columns.join(', ')}`,
  allColumnsBut: (row, except) => `${row}.* EXCEPT (${except.join(', ')})`,
  tempTableAs: (name, select) => `CREATE OR REPLACE TEMPORARY TABLE ${name} ENGINE = Memory AS ${select}`,
  tempTable: (name, columns) => `CREATE OR REPLACE TEMPORARY TABLE ${name} (${columns.map(([c, t]) => `${c} ${TYPES[t]}`).join(', ')}) ENGINE = Memory`,
  eventRows: ({ rows = 'event_vd', joins = [], profile }) => [`${rows} e`, ...joins.map((j) => j.sql), ...(profile ? ['LEFT JOIN profile_vd u ON u.distinct_id = e.distinct_id'] : [])].join(' '),
  innerJoinOn: (keys, range) => ({ on: keys, where: range }),
  insertNumbers: (table) => `INSERT INTO ${table} SELECT arrayJoin({p1:Array(Float64)})`,

  caseOf: (value, branches, otherwise) => `CASE ${value} ${branches.map(([when, then]) => `WHEN ${when} THEN ${then}`).join(' ')} ELSE ${otherwise} END`,
  positionIn: (values, value) => `indexOf([${values.join(', ')}], ${value})`,
  labelWhere: (condition, label, list) => `if(${condition}, ${label}, ${list ? 'emptyArrayString()' : 'NULL'})`,
  labelledRows: (q) => {
    const labels = `(SELECT arraySort(groupUniqArray(lab)) FROM (${q.rows}) WHERE ${q.counted('')})`
    return `SELECT ${q.columns}, if(${q.counted('c.')}, indexOf(${labels}, c.lab) - 1, -1) AS li, NULL AS lab FROM (${q.rows}) AS c WHERE ${q.keep} UNION ALL SELECT ${q.dictionary}, n - 1, l FROM (SELECT ${labels} AS ls) ARRAY JOIN ls AS l, arrayEnumerate(ls) AS n`
  },

  atFirstEver: (firstEver) => ({ join: `LEFT JOIN (${firstEver}) fe ON fe.distinct_id = e.distinct_id`, condition: 'e.xwhen = fe.first_at' }),
  retentionCells: () => null,
  bitmapBytes: () => null,
  retentionCellUsers: () => null,

  truth: (value) => (value ? 'true' : 'false'),
  aggregateWhere: (fn, value, condition) => ifWhere(fn, value === '*' ? '' : value, condition).replace('(, ', '('),
  // every name inlined as its subquery
  aggregate: (fn, value) => `${fn}OrNull(${value})`,
  withQueries: (queries, main) => {
    const from = (name: string, alias?: string): string => `(${queries.find((q) => q.name === name)!.sql(from)}) AS ${alias ?? name}`
    return main(from)
  },
  rollUp: (dims, period, items, per) =>
    `SELECT ${[...dims, period].join(', ')}, 0 AS whole, ${items.map((x) => `${x.period} AS ${x.name}`).join(', ')} FROM ${per} UNION ALL SELECT ${[...dims, 'NULL'].join(', ')}, 1, ${items.map((x) => `${x.whole} AS ${x.name}`).join(', ')} FROM ${per}${dims.length ? ` GROUP BY ${dims.join(', ')}` : ''}`,
  periodsAndWhole: (dims, period, items, from) =>
    `SELECT ${[...dims, period].join(', ')}, 0 AS whole, ${items.join(', ')} ${from} GROUP BY ${[...dims, period].join(', ')} UNION ALL SELECT ${[...dims, 'NULL'].join(', ')}, 1, ${items.join(', ')} ${from}${dims.length ? ` GROUP BY ${dims.join(', ')}` : ''}`,

  tableCount: (table) => `SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = '${table}'`,
  valuesTable: (name, values, labels) =>
    labels
      ? { sql: `CREATE OR REPLACE TEMPORARY TABLE ${name} ENGINE = Memory AS SELECT v.1 AS value, v.2 AS label FROM (SELECT arrayJoin(arrayZip({p1:Array(String)}, {p2:Array(String)})) AS v)`, values: [values, labels] }
      : { sql: `CREATE OR REPLACE TEMPORARY TABLE ${name} ENGINE = Memory AS SELECT DISTINCT arrayJoin({p1:Array(String)}) AS value`, values: [values] },
  replaceTable: (table, select) => [`CREATE OR REPLACE TABLE ${table} ENGINE = MergeTree ORDER BY tuple() AS ${select}`],
  tagVersionsTable: (table) => `CREATE TABLE IF NOT EXISTS ${table} (version Int32, distinct_id Int64, value Nullable(String)) ENGINE = MergeTree PARTITION BY version ORDER BY distinct_id`,
  dropTagVersions: (table, _from, present) => present.map((v) => ({ sql: `ALTER TABLE ${table} DROP PARTITION ${v}`, values: [] })),
  formatStoredStamp: (column) => `toString(toDateTime(intDiv(${column}, 1000), 'UTC'))`,
  firstBy: (value, keys) => `argMin(${value}, tuple(${keys.join(', ')}))`,
  inIds: (id, ids, p) => `has(CAST(${p.add(`[${ids.join(',')}]`)}, 'Array(Int64)'), ${id})`,
  formatSlashed: (local) => `formatDateTime(${local}, '%Y/%m/%d %T')`,
  epochMillis: (instant) => `toUnixTimestamp64Milli(${instant})`,
  storedOrder: (row) => `${row}._part_offset`,
  tableOrView: (name) => ({ sql: 'SELECT comment FROM system.tables WHERE database = currentDatabase() AND name = {p1:String}', values: [name] }),
  tableColumns: (name) => ({ sql: 'SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = {p1:String} ORDER BY position', values: [name] }),
  valueTypeOf: (type) => (type.startsWith('Array') ? 'array<string>' : type === 'Bool' ? 'boolean' : type.startsWith('DateTime') ? 'datetime' : type === 'String' ? 'string' : 'number'),
  rowCount: (name) => `SELECT count() FROM ${ident(name)}`,
  createTable: (name, columns) => `CREATE TABLE ${ident(name)} (${columns.map((c) => `${ident(c.id)} ${c.notNull ? TYPES[c.type] : `Nullable(${TYPES[c.type]})`}`).join(', ')}) ENGINE = MergeTree ORDER BY tuple()`,
  commentOn: (name, comment) => `ALTER TABLE ${ident(name)} MODIFY COMMENT '${comment}'`,
  addColumn: (name, c) => `ALTER TABLE ${ident(name)} ADD COLUMN ${ident(c.id)} Nullable(${TYPES[c.type]})`,
  dropTable: (name, ifExists) => `DROP TABLE ${ifExists ? 'IF EXISTS ' : ''}${ident(name)}`,
  clearTable: (name) => `TRUNCATE TABLE ${ident(name)}`,
  upsert: (name, columns) => ({
    stage: `CREATE TEMPORARY TABLE staged (${columns.map((c, i) => `c${i} Nullable(${TYPES[c.type]}), g${i} Bool`).join(', ')}) ENGINE = Memory`,
    staging: 'staged',
    apply: [`INSERT INTO ${ident(name)} SELECT ${columns.map((_, i) => `c${i}`).join(', ')} FROM staged`, 'DROP TABLE staged'],
  }),
  addPropertyColumn: (table, c) => `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${ident(c.id)} Nullable(${TYPES[c.type]})`,
  retypePropertyColumn: (table, c) => `ALTER TABLE ${table} MODIFY COLUMN ${ident(c.id)} Nullable(${TYPES[c.type]})`,
  resultLines: (inner, columns, format, keys) =>
    format === 'json'
      ? { sql: `SELECT toJSONString(map(${columns.map((_, i) => `{k${i + 1}:String}, toString(c${i + 1})`).join(', ')})) AS line FROM (${inner}) AS q`, values: keys }
      : { sql: `SELECT arrayStringConcat([${columns.map((_, i) => `toString(c${i + 1})`).join(', ')}], ',') AS line FROM (${inner}) AS q`, values: [] },
  exportStamp: (value) => `formatDateTime(${value}, '%F %T')`,
  notBlank: (line) => `notEmpty(trimBoth(${line}))`,
  startsWith: (text, prefix) => `startsWith(${text}, ${prefix})`,
  matches: (text, pattern) => `match(${text}, concat('^(', ${pattern}, ')$'))`,
  includes: (list, item) => `has(${list}, ${item})`,
  firstWhere: (list, test) => `arrayFirst(x -> ${test('x')}, ${list})`,
  tryCast: (expr, type) => `accurateCastOrNull(${expr}, '${TYPES[type]}')`,
  epochMillisText: (text) => `fromUnixTimestamp64Milli(toInt64OrNull(${text}))`,
  jsonMember: (line, member) => `JSONExtractRaw(${line}, '${member}')`,
  jsonKeys: (line, member) => `JSONExtractKeys(${line}, '${member}')`,
  jsonMembers: (line, member, keys) => `[${keys.map((k) => `JSONExtractRaw(${line}, '${member}', '${k}')`).join(', ')}]`,
  listItem: (list, i) => `${list}[${i}]`,
  jsonMemberString: (line, path) => `JSONExtractString(${line}, ${path.map((p) => `'${p}'`).join(', ')})`,
  jsonKindOf: (json) => `JSONType(${json})`,
  jsonKindOfText: (text) => `if(isValidJSON(${text}), JSONType(${text}), NULL)`,
  jsonMemberKind: (line, member) => `JSONType(${line}, '${member}')`,
  jsonKindName: (kind) => ({ object: "'Object'", array: "'Array'", string: "'String'", null: "'Null'" })[kind],
  jsonString: (json) => `JSONExtractString(${json})`,
  parseRecord: (line, top, member, keys) => `JSONExtract(${line}, 'Tuple(${[...top.map((t) => `${t} String`), `${member} Tuple(${keys.map((k) => `${ident(k)} String`).join(', ')})`].join(', ')})')`,
  recordField: (parsed, name) => `tupleElement(${parsed}, '${name}')`,
  recordMember: (parsed, member, key) => `tupleElement(tupleElement(${parsed}, '${member}'), '${key}')`,
  asJsonText: (json) => `toString(${json})`,
  problem: (property, value, reason) => `tuple('${property}', ${value}, '${reason}')`,
  noProblem: () => "CAST(NULL, 'Nullable(Tuple(property String, value String, reason String))')",
  problemList: (problems) => `arrayFilter(x -> isNotNull(x), [${problems.join(', ')}])`,
  noProblems: () => "CAST([], 'Array(Tuple(property String, value String, reason String))')",
  problemField: (problem, field) => `tupleElement(${problem}, '${field}')`,
  anyTrue: (condition) => `max(${condition})`,
  lastPresent: (value, order) => `argMaxIf(${value}, tuple(${order.join(', ')}), isNotNull(${value}))`,
  firstPresent: (value, order) => `argMinIf(${value}, tuple(${order.join(', ')}), isNotNull(${value}))`,
  joinListsInOrder: (list, order) => `arrayFlatten(arrayMap(x -> x.2, arraySort(x -> x.1, groupArrayIf((tuple(${order.join(', ')}), ${list}), isNotNull(${list})))))`,
  appendList: (list, more) => `arrayConcat(${list}, ${more})`,
  emptyList: () => '[]',
  renameTable: (from, to) => `RENAME TABLE ${from} TO ${to}`,
  compact: () => 'OPTIMIZE TABLE event_vd FINAL',
  reportProgress: () => [],
  // custom SQL is checked by the engine that runs it; a dialect that only prints has nothing to check with
  customSqlTables: () => Promise.reject(new Error('the printing dialect runs no SQL')),
  checkCustomSqlText: () => Promise.reject(new Error('the printing dialect runs no SQL')),
  prepareCustomSql: () => Promise.reject(new Error('the printing dialect runs no SQL')),

  uniform: (stream, id) => `(bitShiftRight(cityHash64(bitXor(toUInt64(${stream}), toUInt64(${id}))), 11) * 1.1102230246251565e-16)`,
  weightedTable: (name, columns, rows, partition) => {
    const over = partition ? `PARTITION BY ${partition}` : ''
    const values = rows.map((row, i) => `(${[i, row.weight, ...row.values].join(', ')})`).join(', ')
    return `CREATE OR REPLACE TEMPORARY TABLE ${name} ENGINE = Memory AS
    SELECT * EXCEPT (w), (sum(w) OVER (${over} ORDER BY i) - w) / sum(w) OVER (${over}) AS cum, w / sum(w) OVER (${over}) AS share
    FROM values('i UInt32, w Float64, ${columns.map((c) => `${c} Dynamic`).join(', ')}', ${values})`
  },
  pickJoin: (table, alias, draw, match) => `ASOF JOIN ${table} AS ${alias} ON ${match ? `${match} AND ` : ''}${alias}.cum <= ${draw}`,
  item: (list, index) => `arrayElement(${list}, ${index})`,
  epochSeconds: (instant) => `(toUnixTimestamp64Micro(${instant}) / 1e6)`,
  instantAt: (seconds) => `toDateTime64(${seconds}, 6, 'UTC')`,
  bulkWrite: () => ({ before: [], after: [] }),
  dropTempTable: (name) => `DROP TEMPORARY TABLE IF EXISTS ${name}`,

  valuesByIndex: (values, index, value) => `arrayJoin(arrayZip(range(${values.length}), [${values.join(', ')}])) AS __pair, __pair.1 AS ${index}, __pair.2 AS ${value}`,
  formatStampMillis: (local) => `formatDateTime(${local}, '%F %T.%f')`,
  columnsOfTables: (tables) => `SELECT table, name FROM system.columns WHERE database = currentDatabase() AND table IN (${tables.map((t) => `'${t}'`).join(', ')})`,
  insertByName: (table) => `INSERT INTO ${ident(table)}`,
  tempViewAs: (name, select) => `CREATE OR REPLACE VIEW ${name} AS ${select}`,

  cellKindOf: (type) => (/^U?Int(8|16|32|64)$/.test(type) ? 'integer' : type === 'Float64' ? 'float' : type === 'Bool' ? 'boolean' : 'text'),
  cellText: (raw, kind) => (kind === 'text' ? raw : `toString(${raw})`),
  fromCell: (raw, kind, type) => ({ value: kind === 'text' ? `accurateCastOrNull(nullIf(${raw}, ''), '${TYPES[type]}')` : `CAST(${raw}, '${TYPES[type]}')`, misfit: (v) => `(${raw} IS NOT NULL AND ${v} IS NULL)` }),
  eventTimeOfCell: (raw) => `parseDateTime64BestEffortOrNull(toString(${raw}), 3)`,
  loadTime: () => 'now64(3)',
  fromText: (raw, type) => ({ value: `accurateCastOrNull(nullIf(${raw}, ''), '${TYPES[type]}')`, misfit: (v) => `(notEmpty(${raw}) AND ${v} IS NULL)` }),
  fromJsonText: (text, type) => ({ value: `JSONExtract(${text}, 'Nullable(${TYPES[type]})')`, misfit: (v) => `(${text} IS NOT NULL AND ${v} IS NULL)` }),
  eventTime: (raw, trim) => `parseDateTime64BestEffortOrNull(${trim ? `trimBoth(${raw})` : raw}, 3)`,
  dayOfDate: (date) => `toYYYYMMDD(${date})`,
  jsonTextIsString: (text) => `startsWith(${text}, '"')`,
  jsonTextIsNumber: (text) => `isValidJSON(${text}) AND JSONType(${text}) IN ('Int64', 'UInt64', 'Double')`,
  jsonTextIsInteger: (text) => `match(${text}, '^-?[0-9]+$')`,
  jsonTextString: (text) => `JSONExtract(${text}, 'Nullable(String)')`,

  jsonArrayLines: (file, gzip) => `SELECT json AS line FROM file('${file}', 'JSONAsString', 'json String'${gzip ? ", 'gzip'" : ''})`,
  fileLines: (file, r) => `SELECT line FROM file('${file}', 'LineAsString', 'line String'${r.gzip ? ", 'gzip'" : ''})`,
  delimitedFile: (file, r) => `file('${file}', '${r.delimiter === '\t' ? 'TSVWithNames' : 'CSVWithNames'}')`,
  firstRejectedLine: (rejects) => `SELECT line, text, message FROM ${rejects.errors} ORDER BY line LIMIT 1`,
  rejectedLine: (row) => ({ line: row.line, text: String(row.text), cells: null, encoding: false, message: String(row.message) }),
  parquetFile: (file) => `file('${file}', 'Parquet')`,
  describeColumns: (select) => `DESCRIBE (${select})`,
  cellAsText: (column, engineType) => (/^(Array|Tuple|Map)\(/.test(engineType) ? `toJSONString(${column})` : `toString(${column})`),
  tempColumns: (name) => `SELECT name, type FROM system.columns WHERE database = '' AND table = '${name}' ORDER BY position`,
  insertionOrder: () => [],
  defaultInsertionOrder: () => [],
  // the outcomes table as ClickHouse writes it (no printed form of its own)
  ...clickhouseOutcomes,
}

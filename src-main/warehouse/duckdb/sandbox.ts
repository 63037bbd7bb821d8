import { CustomSqlRefusal, type SqlScope } from '../parts/customSql'

/**
 * The sandbox of custom SQL, over the parse tree DuckDB gives for the text
 * (`json_serialize_sql`, parsing only: nothing is bound or read). Everything is refused that is
 * not known to be safe: table references of an unknown kind, tables outside the queryable list,
 * table functions outside a small list of value generators, and scalar functions that reach the
 * engine's settings, variables, sequences, catalog or logs. Statement kinds are checked apart
 * (one statement, a SELECT); file and network access are also off for the whole database
 * (see the warehouse), so this list is not the only wall.
 */

/** A table reference written with the project's appKey as its database, to be unqualified. */
export interface AppKeyRef {
  /** Byte offset of the reference in the SQL text. */
  location: number
  table: string
}

/** Table functions that only generate values (no files, no catalog, no other SQL). */
const TABLE_FUNCTIONS = new Set(['range', 'generate_series', 'unnest', 'json_each', 'json_tree'])

/**
 * Scalar functions and macros refused: they read settings or variables, change sequences, write
 * the log, sleep, or read the catalog through duckdb_* tables (the pg_* macros listed).
 */
const DENIED_FUNCTIONS = new Set([
  'current_setting', 'getvariable', 'nextval', 'currval', 'write_log', 'sleep_ms', 'pg_sleep',
  'pg_get_constraintdef', 'pg_get_viewdef', 'format_type', 'get_block_size', 'json_execute_serialized_sql',
])
const DENIED_PREFIXES = ['duckdb_', 'pragma_']

/** Kinds of table reference and of query node a plain query is made of. */
const REF_TYPES = new Set(['BASE_TABLE', 'SUBQUERY', 'JOIN', 'TABLE_FUNCTION', 'EXPRESSION_LIST', 'EMPTY', 'PIVOT'])
const NODE_TYPES = new Set(['SELECT_NODE', 'SET_OPERATION_NODE', 'RECURSIVE_CTE_NODE'])

type Node = Record<string, unknown>

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v)
const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : '')

function refused(message: string): never {
  throw new CustomSqlRefusal(message)
}

/**
 * Checks the parse tree of one SELECT (the JSON of `json_serialize_sql`) and resolves to the
 * references written `<appKey>.<table>`, which the caller rewrites before running the query.
 */
export function inspectTree(json: string, scope: SqlScope): AppKeyRef[] {
  const tree = JSON.parse(json) as Node
  if (tree.error) {
    const message = String(tree.error_message ?? 'the query cannot be read')
    if (/only select/i.test(message)) refused('only a query (one SELECT) is allowed: data changes, definitions, settings, COPY, ATTACH, PRAGMA, EXPLAIN and the like are not')
    refused(message)
  }
  const statements = Array.isArray(tree.statements) ? tree.statements : []
  if (statements.length !== 1) refused('sql must hold exactly one statement')
  const found: AppKeyRef[] = []
  walk((statements[0] as Node).node, new Set(), scope, found)
  return found
}

function walk(value: unknown, ctes: Set<string>, scope: SqlScope, found: AppKeyRef[]): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, ctes, scope, found)
    return
  }
  if (!isNode(value)) return
  let inScope = ctes
  const cteMap = value.cte_map
  if (isNode(cteMap) && Array.isArray(cteMap.map)) {
    // a CTE's body sees the CTEs before it, never itself or later ones: DuckDB binds such a
    // name to a table of the same name, so it must be checked as one
    inScope = new Set(ctes)
    for (const entry of cteMap.map as Node[]) {
      walk(entry.value, inScope, scope, found)
      inScope.add(lower(entry.key))
    }
  }
  checkNode(value, inScope, scope, found)
  for (const [key, child] of Object.entries(value)) {
    if (key === 'cte_map') continue
    // only the recursive part of a recursive CTE refers to the CTE itself
    const own = value.type === 'RECURSIVE_CTE_NODE' && key === 'right' ? new Set([...inScope, lower(value.cte_name)]) : inScope
    walk(child, own, scope, found)
  }
}

function checkNode(node: Node, ctes: Set<string>, scope: SqlScope, found: AppKeyRef[]): void {
  if (typeof node.function_name === 'string') checkFunction(node.function_name)
  // expressions carry a class; query nodes and table references do not
  if (typeof node.type !== 'string' || 'class' in node) return
  if (node.type === 'BASE_TABLE') return checkTable(node, ctes, scope, found)
  if (node.type === 'TABLE_FUNCTION') {
    const name = isNode(node.function) ? lower(node.function.function_name) : ''
    if (TABLE_FUNCTIONS.has(name)) return
    refused(`table function ${name || '(unknown)'} is not allowed: custom SQL reads the project's tables only (value generators allowed: ${[...TABLE_FUNCTIONS].join(', ')})`)
  }
  if (node.type === 'SHOW_REF') refused('DESCRIBE, SHOW and SUMMARIZE are not supported: query the tables instead')
  if ('cte_map' in node) {
    if (!NODE_TYPES.has(node.type)) refused(`this kind of query (${node.type}) is not supported`)
  } else if ('query_location' in node && !REF_TYPES.has(node.type)) {
    refused(`this kind of table reference (${node.type}) is not supported`)
  }
}

function checkFunction(name: string): void {
  const n = name.toLowerCase()
  if (DENIED_FUNCTIONS.has(n) || DENIED_PREFIXES.some((p) => n.startsWith(p))) refused(`function ${name} is not allowed in custom SQL`)
}

function checkTable(node: Node, ctes: Set<string>, scope: SqlScope, found: AppKeyRef[]): void {
  const catalog = lower(node.catalog_name)
  const schema = lower(node.schema_name)
  const table = lower(node.table_name)
  if (!catalog && !schema && ctes.has(table)) return
  const written = [node.catalog_name, node.schema_name, node.table_name].filter(Boolean).join('.')
  const database = scope.database.toLowerCase()
  const appKey = scope.appKey.toLowerCase()
  // <table>, main.<table>, <db>.<table>, <db>.main.<table>, where <db> is the appKey or the catalog
  const ownDatabase = (name: string) => name === database || name === appKey
  const ours = catalog ? ownDatabase(catalog) && (schema === 'main' || schema === '') : !schema || schema === 'main' || ownDatabase(schema)
  if (!ours) {
    refused(`a table of another project is included: ${written} (tables of this project are written <table> or ${scope.appKey}.<table>)`)
  }
  if (!scope.tables.has(table)) {
    refused(`table ${node.table_name} cannot be queried; the tables of this project are ${[...scope.tables].sort().join(', ')}`)
  }
  const byAppKey = (catalog === appKey && appKey !== database) || (!catalog && schema === appKey && appKey !== database && appKey !== 'main')
  if (byAppKey) found.push({ location: Number(node.query_location), table: String(node.table_name) })
}

/** An identifier as DuckDB reads it: "quoted" (doubled quotes inside) or plain. */
const IDENT = /^(?:"(?:[^"]|"")*"|[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*)/

/**
 * Rewrites `<appKey>.<table>` (and `<appKey>.main.<table>`) to `<table>` at the given byte
 * offsets. A reference that does not read back as the expected name is refused rather than
 * guessed at; the caller checks the rewritten text again.
 */
export function unqualify(sql: string, refs: AppKeyRef[]): string {
  const bytes = Buffer.from(sql, 'utf8')
  let out = sql
  // from the end, so earlier offsets stay valid
  for (const ref of [...refs].sort((a, b) => b.location - a.location)) {
    const start = bytes.subarray(0, ref.location).toString('utf8').length
    const parts: string[] = []
    let at = start
    for (;;) {
      const m = IDENT.exec(out.slice(at))
      if (!m) break
      parts.push(m[0])
      at += m[0].length
      const dot = /^\s*\.\s*/.exec(out.slice(at))
      if (!dot) break
      at += dot[0].length
    }
    const last = parts[parts.length - 1] ?? ''
    const name = last.startsWith('"') ? last.slice(1, -1).replace(/""/g, '"') : last
    if (parts.length < 2 || name.toLowerCase() !== ref.table.toLowerCase()) {
      refused(`write the table ${ref.table} as ${ref.table} or <appKey>.${ref.table}`)
    }
    out = out.slice(0, start) + last + out.slice(at)
  }
  return out
}

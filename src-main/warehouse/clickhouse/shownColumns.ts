import { tokenize, type Token } from './sandbox'

/**
 * Which result columns of a custom SQL query hold a project column that ClickHouse stores as a
 * number where DuckDB has a type of its own, so that the answer shows them as DuckDB does
 * (docs/clickhouse.md, "Custom SQL: datetimes and booleans"):
 * - `instant`: event_vd.xwhen (epoch ms), shown in the project's time zone (DuckDB's TIMESTAMPTZ);
 * - `datetime`: a datetime property or dimension column (Int64 epoch ms of the wall clock), shown as
 *   that wall clock (DuckDB's TIMESTAMP);
 * - `boolean`: a boolean property or dimension column (UInt8), shown as true/false.
 * 18.16 gives no parse tree and no column origins, so the outer select list is read token by token.
 * A result column is converted when its item (in every branch of a UNION ALL) is a bare reference
 * to such a column of a table or subquery its FROM names (`xwhen`, `e.xwhen`, optionally aliased),
 * one of `min`, `max`, `any`, `anyLast` of it, `argMin`/`argMax` with it as the value, or a column
 * that `*` / `e.*` brings, and ClickHouse's type of the result is still the stored one. A
 * subquery's columns are read by the same rule. Anything computed (`xwhen + 0`, `toString(vip)`)
 * shows what ClickHouse gives.
 */

export type Shown = 'instant' | 'datetime' | 'boolean'

/** A project table's columns in their order, each with how it is shown (null: as ClickHouse gives it). */
export type ProjectColumns = Map<string, { name: string; shown: Shown | null }[]>

/** The base type of a ClickHouse type (Nullable looked through). */
const baseOf = (type: string) => type.replace(/^Nullable\((.*)\)$/, '$1')
/** The stored type each kind must still have in the result. */
const STORED: Record<Shown, string> = { instant: 'Int64', datetime: 'Int64', boolean: 'UInt8' }

/** Functions whose value is their (first) argument's, of the same type. */
const KEEPS_VALUE = new Set(['min', 'max', 'any', 'anylast', 'argmin', 'argmax'])
const CLAUSE_END = new Set(['where', 'prewhere', 'group', 'order', 'limit', 'having', 'settings', 'format', 'union'])
const NOT_ALIAS = new Set([...CLAUSE_END, 'final', 'sample', 'array', 'left', 'right', 'inner', 'full', 'cross', 'any', 'all', 'global', 'join', 'asof', 'semi', 'anti', 'using', 'on', 'as', 'paste'])

const isName = (t: Token | undefined) => t !== undefined && (t.kind === 'word' || t.kind === 'quoted')
const isWord = (t: Token | undefined, word: string) => t?.kind === 'word' && t.name === word

/** The tokens at parenthesis depth 0 split where `at(i)` is true (the separators dropped). */
function splitTop(tokens: Token[], at: (i: number) => boolean): Token[][] {
  const parts: Token[][] = [[]]
  let depth = 0
  tokens.forEach((t, i) => {
    if (t.text === '(' || t.text === '[') depth++
    else if (t.text === ')' || t.text === ']') depth--
    if (depth === 0 && at(i)) parts.push([])
    else parts[parts.length - 1].push(t)
  })
  return parts
}

/** The index of the first depth-0 token of `tokens` from `start` that `match` accepts, or -1. */
function findTop(tokens: Token[], start: number, match: (t: Token) => boolean): number {
  let depth = 0
  for (let i = start; i < tokens.length; i++) {
    const t = tokens[i]
    if (depth === 0 && match(t)) return i
    if (t.text === '(' || t.text === '[') depth++
    else if (t.text === ')' || t.text === ']') depth--
  }
  return -1
}

/** A column a table or subquery gives: its name (null when ClickHouse names it from its expression) and how it is shown. */
interface Column {
  name: string | null
  shown: Shown | null
}

interface Source {
  /** Its columns in order; null when they cannot be read (a CTE, a subquery of an unknown shape). */
  columns: Column[] | null
  /** The project table, or null for a subquery. */
  table: string | null
  alias: string | null
}

/** The index after the parenthesis that closes the one at `open`. */
function afterClose(tokens: Token[], open: number): number {
  let depth = 0
  for (let i = open; i < tokens.length; i++) {
    if (tokens[i].text === '(') depth++
    else if (tokens[i].text === ')' && --depth === 0) return i + 1
  }
  return tokens.length
}

/** The tables a SELECT's FROM names (its depth-0 tokens after FROM). */
function sourcesOf(from: Token[], project: ProjectColumns): Source[] {
  const sources: Source[] = []
  let depth = 0
  // `FROM a, b`: commas list tables until the first JOIN (ON/USING and ARRAY JOIN lists are not tables)
  let commaList = true
  for (let i = 0; i < from.length; i++) {
    const t = from[i]
    if (depth === 0 && t.kind === 'word' && ['join', 'on', 'using', 'array'].includes(t.name!)) commaList = false
    const starts = i === 0 || (depth === 0 && ((commaList && t.text === ',') || (isWord(t, 'join') && !isWord(from[i - 1], 'array'))))
    if (t.text === '(' || t.text === '[') depth++
    else if (t.text === ')' || t.text === ']') depth--
    if (!starts) continue
    let j = i === 0 ? 0 : i + 1
    let table: string | null = null
    let columns: Column[] | null
    if (from[j]?.text === '(') {
      const after = afterClose(from, j)
      // a subquery's columns, read the same way (its own FROM, items and aliases)
      columns = queryColumns(from.slice(j + 1, after - 1), project, null)
      j = after
    } else if (isName(from[j])) {
      table = from[j].name!
      columns = project.get(table) ?? null
      j++
    } else {
      continue
    }
    if (isWord(from[j], 'final')) j++
    if (isWord(from[j], 'as')) j++
    const alias = isName(from[j]) && !(from[j].kind === 'word' && NOT_ALIAS.has(from[j].name!)) ? from[j].name! : null
    sources.push({ columns, table, alias })
  }
  return sources
}

/** What one select item is: a column reference (possibly under a value-keeping function), a star, or other. */
type Item = { kind: 'ref'; qualifier: string | null; column: string; through: boolean } | { kind: 'star'; qualifier: string | null } | { kind: 'other' }

/** A select item's trailing alias (`... AS name`, or `... name` after a name or ')'), and the item without it. */
function aliased(tokens: Token[]): { body: Token[]; alias: string | null } {
  const n = tokens.length
  if (n >= 3 && isWord(tokens[n - 2], 'as') && isName(tokens[n - 1])) return { body: tokens.slice(0, -2), alias: tokens[n - 1].name! }
  if (n >= 2 && isName(tokens[n - 1]) && (isName(tokens[n - 2]) || tokens[n - 2].text === ')')) return { body: tokens.slice(0, -1), alias: tokens[n - 1].name! }
  return { body: tokens, alias: null }
}

function itemOf(tokens: Token[]): Item {
  const { body } = aliased(tokens)
  const ref = (ts: Token[], through = false): Item => {
    if (ts.length === 1 && isName(ts[0])) return { kind: 'ref', qualifier: null, column: ts[0].name!, through }
    if (ts.length === 3 && isName(ts[0]) && ts[1].text === '.' && isName(ts[2])) return { kind: 'ref', qualifier: ts[0].name!, column: ts[2].name!, through }
    return { kind: 'other' }
  }
  if (body.length === 1 && body[0].text === '*') return { kind: 'star', qualifier: null }
  if (body.length === 3 && isName(body[0]) && body[1].text === '.' && body[2].text === '*') return { kind: 'star', qualifier: body[0].name! }
  const f = body[0]
  if (body.length >= 4 && f.kind === 'word' && KEEPS_VALUE.has(f.name!) && body[1].text === '(' && body[body.length - 1].text === ')') {
    const args = splitTop(body.slice(2, -1), (i) => body[i + 2].text === ',')
    const many = f.name === 'argmin' || f.name === 'argmax'
    if (args.length === (many ? 2 : 1)) return ref(args[0], true)
    return { kind: 'other' }
  }
  return ref(body)
}

/**
 * The columns one SELECT gives, in order; null when their number cannot be told. `result` (the outer
 * query only) holds ClickHouse's names of the result columns: they place a star of unknown width.
 */
function selectColumns(select: Token[], project: ProjectColumns, result: string[] | null): Column[] | null {
  const at = findTop(select, 0, (t) => isWord(t, 'select'))
  if (at < 0) return null
  let start = at + 1
  if (isWord(select[start], 'distinct') || isWord(select[start], 'all')) start++
  const fromAt = findTop(select, start, (t) => isWord(t, 'from'))
  const clauseEnd = (from: number) => {
    const end = findTop(select, from, (t) => t.kind === 'word' && CLAUSE_END.has(t.name!))
    return end < 0 ? select.length : end
  }
  const itemTokens = splitTop(select.slice(start, fromAt >= 0 ? fromAt : clauseEnd(start)), (i) => select[start + i].text === ',')
  const items = itemTokens.map(itemOf)
  // ClickHouse's aliases hold in the whole query: a bare name that is another item's alias is that item, not the column
  const aliases = new Set<string>()
  const names = itemTokens.map((t, i) => {
    const { alias } = aliased(t)
    const item = items[i]
    if (alias !== null && !(item.kind === 'ref' && item.column === alias)) aliases.add(alias)
    return alias ?? (item.kind === 'ref' && !item.through ? item.column : null)
  })
  const sources = fromAt >= 0 ? sourcesOf(select.slice(fromAt + 1, clauseEnd(fromAt + 1)), project) : []
  const sourceNamed = (q: string) => sources.find((s) => s.alias === q) ?? sources.find((s) => s.alias === null && s.table === q)
  /** A column's kind: through its qualifier, or the same in every source of the FROM that has it. */
  const kindOf = (qualifier: string | null, column: string): Shown | null => {
    if (qualifier !== null) return sourceNamed(qualifier)?.columns?.find((c) => c.name === column)?.shown ?? null
    // a source whose columns are unknown could hold one of that name
    if (aliases.has(column) || sources.some((s) => s.columns === null)) return null
    const found = sources.flatMap((s) => s.columns!.filter((c) => c.name === column))
    return found.length > 0 && found.every((c) => c.shown === found[0].shown) ? found[0].shown : null
  }
  /** The source whose columns a star brings in order, when there is one. */
  const starSource = (item: Item) => (item.kind !== 'star' ? undefined : item.qualifier !== null ? sourceNamed(item.qualifier) : sources.length === 1 ? sources[0] : undefined)
  const widths = items.map((item) => (item.kind === 'star' ? (starSource(item)?.columns?.length ?? null) : 1))
  const unknown = widths.filter((w) => w === null).length
  const known = widths.reduce<number>((sum, w) => sum + (w ?? 0), 0)
  if (result === null ? unknown > 0 : unknown > 1 || (unknown === 0 && known !== result.length) || known > result.length) return null
  const out: Column[] = []
  items.forEach((item, i) => {
    if (item.kind === 'ref') out.push({ name: names[i], shown: kindOf(item.qualifier, item.column) })
    else if (item.kind === 'other') out.push({ name: names[i], shown: null })
    else if (widths[i] !== null) out.push(...starSource(item)!.columns!)
    else {
      // a star over a join: its columns are named `column` or `alias.column` (a name the left side already has)
      for (let k = known; k < result!.length; k++) {
        const name = result![out.length].toLowerCase()
        const dot = name.indexOf('.')
        out.push({ name, shown: dot > 0 ? kindOf(name.slice(0, dot), name.slice(dot + 1)) : kindOf(null, name) })
      }
    }
  })
  return out
}

/** The columns of a query: its first SELECT's names, each shown alike in every branch of a UNION or not at all. */
function queryColumns(tokens: Token[], project: ProjectColumns, result: string[] | null): Column[] | null {
  const branches = splitTop(tokens, (i) => isWord(tokens[i], 'union')).map((b, i) => (i > 0 && (isWord(b[0], 'all') || isWord(b[0], 'distinct')) ? b.slice(1) : b))
  const each = branches.map((b) => selectColumns(b, project, result))
  const first = each[0]
  if (!first || each.some((b) => !b || b.length !== first.length)) return null
  return first.map((c, i) => ({ name: c.name, shown: each.every((b) => b![i].shown === c.shown) ? c.shown : null }))
}

/** How each result column of the checked query `sql` is shown (null: as ClickHouse gives it). */
export function shownColumns(sql: string, project: ProjectColumns, result: { name: string; type: string }[]): (Shown | null)[] {
  const columns = queryColumns(tokenize(sql), project, result.map((c) => c.name))
  return result.map((column, i) => {
    const kind = columns?.[i]?.shown ?? null
    return kind !== null && baseOf(column.type) === STORED[kind] ? kind : null
  })
}

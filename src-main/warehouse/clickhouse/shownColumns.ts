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
 * to such a column of a project table its FROM names (`xwhen`, `e.xwhen`, optionally aliased), one
 * of `min`, `max`, `any`, `anyLast` of it, `argMin`/`argMax` with it as the value, or a column
 * that `*` / `e.*` brings, and ClickHouse's type of the result is still the stored one. Anything
 * computed (`xwhen + 0`, `toString(vip)`), or read through a subquery, shows what ClickHouse gives.
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

interface Source {
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
function sourcesOf(from: Token[]): Source[] {
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
    if (from[j]?.text === '(') {
      j = afterClose(from, j)
    } else if (isName(from[j])) {
      table = from[j].name!
      j++
    } else {
      continue
    }
    if (isWord(from[j], 'final')) j++
    if (isWord(from[j], 'as')) j++
    const alias = isName(from[j]) && !(from[j].kind === 'word' && NOT_ALIAS.has(from[j].name!)) ? from[j].name! : null
    sources.push({ table, alias })
  }
  return sources
}

/** What one select item is: a column reference (possibly under a value-keeping function), a star, or other. */
type Item = { kind: 'ref'; qualifier: string | null; column: string } | { kind: 'star'; qualifier: string | null } | { kind: 'other' }

/** A select item's trailing alias (`... AS name`, or `... name` after a name or ')'), and the item without it. */
function aliased(tokens: Token[]): { body: Token[]; alias: string | null } {
  const n = tokens.length
  if (n >= 3 && isWord(tokens[n - 2], 'as') && isName(tokens[n - 1])) return { body: tokens.slice(0, -2), alias: tokens[n - 1].name! }
  if (n >= 2 && isName(tokens[n - 1]) && (isName(tokens[n - 2]) || tokens[n - 2].text === ')')) return { body: tokens.slice(0, -1), alias: tokens[n - 1].name! }
  return { body: tokens, alias: null }
}

function itemOf(tokens: Token[]): Item {
  const { body } = aliased(tokens)
  const ref = (ts: Token[]): Item => {
    if (ts.length === 1 && isName(ts[0])) return { kind: 'ref', qualifier: null, column: ts[0].name! }
    if (ts.length === 3 && isName(ts[0]) && ts[1].text === '.' && isName(ts[2])) return { kind: 'ref', qualifier: ts[0].name!, column: ts[2].name! }
    return { kind: 'other' }
  }
  if (body.length === 1 && body[0].text === '*') return { kind: 'star', qualifier: null }
  if (body.length === 3 && isName(body[0]) && body[1].text === '.' && body[2].text === '*') return { kind: 'star', qualifier: body[0].name! }
  const f = body[0]
  if (body.length >= 4 && f.kind === 'word' && KEEPS_VALUE.has(f.name!) && body[1].text === '(' && body[body.length - 1].text === ')') {
    const args = splitTop(body.slice(2, -1), (i) => body[i + 2].text === ',')
    const many = f.name === 'argmin' || f.name === 'argmax'
    if (args.length === (many ? 2 : 1)) return ref(args[0])
    return { kind: 'other' }
  }
  return ref(body)
}

/** How each result column of one SELECT is shown, by the column names and types ClickHouse described; null where unknown. */
function branchShown(select: Token[], project: ProjectColumns, result: { name: string; type: string }[]): (Shown | null)[] | null {
  const at = findTop(select, 0, (t) => isWord(t, 'select'))
  if (at < 0) return null
  let start = at + 1
  if (isWord(select[start], 'distinct') || isWord(select[start], 'all')) start++
  const fromAt = findTop(select, start, (t) => isWord(t, 'from'))
  const listEnd = fromAt >= 0 ? fromAt : (() => {
    const end = findTop(select, start, (t) => t.kind === 'word' && CLAUSE_END.has(t.name!))
    return end < 0 ? select.length : end
  })()
  const itemTokens = splitTop(select.slice(start, listEnd), (i) => select[start + i].text === ',')
  const items = itemTokens.map(itemOf)
  // ClickHouse's aliases hold in the whole query: a bare name that is an alias is that item, not the column
  const aliases = new Set<string>()
  itemTokens.forEach((t, i) => {
    const { alias } = aliased(t)
    const item = items[i]
    if (alias !== null && !(item.kind === 'ref' && item.column === alias)) aliases.add(alias)
  })
  let sources: Source[] = []
  if (fromAt >= 0) {
    const end = findTop(select, fromAt + 1, (t) => t.kind === 'word' && CLAUSE_END.has(t.name!))
    sources = sourcesOf(select.slice(fromAt + 1, end < 0 ? select.length : end))
  }
  const sourceNamed = (q: string) => sources.find((s) => s.alias === q) ?? sources.find((s) => s.alias === null && s.table === q)
  const columnsOf = (s: Source | undefined) => (s?.table ? project.get(s.table) : undefined)
  /** A column's kind: through its qualifier, or the same in every table of the FROM that could hold it. */
  const kindOf = (qualifier: string | null, column: string): Shown | null => {
    if (qualifier === null && aliases.has(column)) return null
    if (qualifier !== null) return columnsOf(sourceNamed(qualifier))?.find((c) => c.name === column)?.shown ?? null
    const kinds = sources.map((s) => (s.table === null ? undefined : columnsOf(s)?.find((c) => c.name === column)))
    // a subquery could hold a column of that name: its origin is not read
    if (sources.some((s) => s.table === null)) return null
    const found = kinds.filter((k) => k !== undefined)
    return found.length > 0 && found.every((k) => k!.shown === found[0]!.shown) ? found[0]!.shown : null
  }
  // a star's width: a project table's columns, or (one star of unknown width) what the other items leave
  const width = (item: Item): number | null => {
    if (item.kind !== 'star') return 1
    if (item.qualifier !== null) return columnsOf(sourceNamed(item.qualifier))?.length ?? null
    return sources.length === 1 ? (columnsOf(sources[0])?.length ?? null) : null
  }
  const widths = items.map(width)
  const unknown = widths.filter((w) => w === null).length
  const known = widths.reduce<number>((sum, w) => sum + (w ?? 0), 0)
  if (unknown > 1 || (unknown === 0 && known !== result.length) || known > result.length) return null
  const shown: (Shown | null)[] = []
  items.forEach((item, i) => {
    const n = widths[i] ?? result.length - known
    for (let k = 0; k < n; k++) {
      if (item.kind === 'ref') shown.push(kindOf(item.qualifier, item.column))
      else if (item.kind === 'other') shown.push(null)
      else {
        // a star's column is named `column` or `alias.column` (a name the left side already has)
        const name = result[shown.length].name
        const dot = name.indexOf('.')
        shown.push(dot > 0 ? kindOf(name.slice(0, dot).toLowerCase(), name.slice(dot + 1).toLowerCase()) : kindOf(item.qualifier, name.toLowerCase()))
      }
    }
  })
  return shown
}

/** How each result column of the checked query `sql` is shown (null: as ClickHouse gives it). */
export function shownColumns(sql: string, project: ProjectColumns, result: { name: string; type: string }[]): (Shown | null)[] {
  const tokens = tokenize(sql)
  const branches = splitTop(tokens, (i) => isWord(tokens[i], 'union')).map((b, i) => (i > 0 && (isWord(b[0], 'all') || isWord(b[0], 'distinct')) ? b.slice(1) : b))
  const each = branches.map((b) => branchShown(b, project, result))
  return result.map((column, i) => {
    const kinds = each.map((b) => (b ? b[i] : null))
    const kind = kinds[0]
    if (kind === null || kinds.some((k) => k !== kind)) return null
    return baseOf(column.type) === STORED[kind] ? kind : null
  })
}

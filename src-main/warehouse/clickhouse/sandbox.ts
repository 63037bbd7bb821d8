import { CustomSqlRefusal, type SqlScope } from '../parts/customSql'

/**
 * The sandbox of custom SQL on ClickHouse. Neither 18.16 nor the HTTP interface gives a parse tree
 * (EXPLAIN AST is current-only), so the text is read token by token here: strings, quoted names
 * and comments can hide nothing. Refused: more than one statement, anything but a SELECT (WITH
 * ... SELECT), FORMAT / INTO OUTFILE / SETTINGS clauses, every table function (file, url, remote,
 * mysql, s3 ... and numbers too: readonly=1 refuses them all anyway), functions that reach
 * dictionaries, Join tables or files, and any table but the project's (another database, system).
 * The read-only profile (readonly=1) is the second wall.
 */

export interface Token {
  kind: 'word' | 'quoted' | 'string' | 'number' | 'punct' | 'param'
  text: string
  /** The name a word or quoted name stands for, lower case. */
  name?: string
  /** Where the token starts in the text. */
  at: number
}

const DENIED_FUNCTIONS = /^(file|url|remote|remotesecure|cluster|clusterallreplicas|mysql|postgresql|jdbc|odbc|hdfs|s3|s3cluster|gcs|azureblobstorage|input|executable|sqlite|mongodb|redis|joinget|joingetornull|getsetting|filesystem\w*|dict\w*)$/
const CLAUSES_DENIED = new Set(['format', 'into', 'settings', 'outfile'])

function refused(message: string): never {
  throw new CustomSqlRefusal(message)
}

/** The tokens of a text; comments are dropped. */
export function tokenize(sql: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < sql.length) {
    const c = sql[i]
    if (/\s/.test(c)) {
      i++
    } else if (c === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i)
      i = nl < 0 ? sql.length : nl + 1
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2)
      if (end < 0) refused('the query has a comment that does not end')
      i = end + 2
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1
      let value = ''
      for (;;) {
        if (j >= sql.length) refused(`the query has a ${c === "'" ? 'string' : 'quoted name'} that does not end`)
        if (sql[j] === '\\') {
          value += sql.slice(j, j + 2)
          j += 2
        } else if (sql[j] === c && sql[j + 1] === c) {
          value += c
          j += 2
        } else if (sql[j] === c) {
          break
        } else {
          value += sql[j++]
        }
      }
      const text = sql.slice(i, j + 1)
      tokens.push(c === "'" ? { kind: 'string', text, at: i } : { kind: 'quoted', text, name: value.toLowerCase(), at: i })
      i = j + 1
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(i))!
      tokens.push({ kind: 'word', text: m[0], name: m[0].toLowerCase(), at: i })
      i += m[0].length
    } else if (/[0-9.]/.test(c) && /^(\d|\.\d)/.test(sql.slice(i, i + 2))) {
      const m = /^(0x[0-9A-Fa-f]+|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)/.exec(sql.slice(i))!
      tokens.push({ kind: 'number', text: m[0], at: i })
      i += m[0].length
    } else if (c === '{' || c === '$' || c === '?') {
      tokens.push({ kind: 'param', text: c, at: i })
      i++
    } else {
      const two = sql.slice(i, i + 2)
      const text = ['<=', '>=', '!=', '<>', '||', '->', '=='].includes(two) ? two : c
      tokens.push({ kind: 'punct', text, at: i })
      i += text.length
    }
  }
  return tokens
}

const isName = (t: Token | undefined) => t !== undefined && (t.kind === 'word' || t.kind === 'quoted')
const is = (t: Token | undefined, word: string) => t !== undefined && t.kind === 'word' && t.name === word

/** What the check found: the tokens of the one statement, and where `<database>.` prefixes stand. */
export interface Inspected {
  sql: string
  tokens: Token[]
  /** Indexes of tokens (a name and its dot) to drop: the project's own database before a table. */
  drop: Set<number>
}

/** Checks one SELECT; its table references must be the project's tables or the query's own CTEs. */
export function inspect(sql: string, scope: SqlScope): Inspected {
  const all = tokenize(sql)
  while (all.length > 0 && all[all.length - 1].text === ';' && all[all.length - 1].kind === 'punct') all.pop()
  if (all.length === 0) refused('sql is empty: write one SELECT')
  if (all.some((t) => t.kind === 'punct' && t.text === ';')) refused('sql must hold exactly one statement')
  if (!is(all[0], 'select') && !is(all[0], 'with') && !(all[0].text === '(')) {
    refused('only a query (one SELECT) is allowed: data changes, definitions, settings, SYSTEM, KILL, EXPLAIN and the like are not')
  }
  if (all.some((t) => t.kind === 'param')) refused('parameters ({name:Type}, $1, ?) cannot be used: write the values into the query')
  const ctes = new Set<string>()
  for (let i = 0; i + 2 < all.length; i++) {
    if (isName(all[i]) && is(all[i + 1], 'as') && all[i + 2].text === '(') ctes.add(all[i].name!)
  }
  const drop = new Set<number>()
  const own = new Set([scope.database.toLowerCase(), scope.appKey.toLowerCase()])
  /** Checks the table reference starting at i; returns the index after it. */
  const tableAt = (i: number): number => {
    const t = all[i]
    if (t?.text === '(') {
      // a subquery: its tokens are checked as the scan reaches them; a comma list goes on after it
      for (let depth = 0, j = i; j < all.length; j++) {
        if (all[j].text === '(') depth++
        else if (all[j].text === ')' && --depth === 0) return j + 1
      }
      return all.length
    }
    if (!isName(t)) refused('a table name is missing after FROM or JOIN')
    if (all[i + 1]?.text === '(') refused(`table functions such as ${t.text}() cannot be used: read the project's tables`)
    let table = t.name!
    let next = i + 1
    if (all[i + 1]?.text === '.' && isName(all[i + 2])) {
      if (!own.has(t.name!)) refused(`only the project's own tables can be read, not ${t.text}.${all[i + 2].text}`)
      if (all[i + 3]?.text === '(') refused('table functions cannot be used')
      drop.add(i).add(i + 1)
      table = all[i + 2].name!
      next = i + 3
    }
    if (!scope.tables.has(table) && !ctes.has(table)) refused(`table ${table} is not one of the project's tables`)
    return next
  }
  for (let i = 0; i < all.length; i++) {
    const t = all[i]
    if (t.kind !== 'word') continue
    if (CLAUSES_DENIED.has(t.name!)) refused(`${t.text.toUpperCase()} cannot be used in custom SQL`)
    if (all[i + 1]?.text === '(' && DENIED_FUNCTIONS.test(t.name!)) refused(`function ${t.text}() cannot be used: it reaches outside the project's tables`)
    const arrayJoin = t.name === 'join' && is(all[i - 1], 'array')
    if (t.name === 'from' || (t.name === 'join' && !arrayJoin)) {
      let j = tableAt(i + 1)
      // FROM a, b: every table of a comma list (aliases and FINAL skipped)
      while (t.name === 'from' && j < all.length) {
        if (is(all[j], 'as')) j++
        if (isName(all[j]) && !['where', 'prewhere', 'group', 'order', 'limit', 'having', 'union', 'final', 'sample', 'array', 'left', 'inner', 'any', 'all', 'global', 'join', 'cross', 'full', 'right', 'asof', 'semi', 'anti', 'using', 'on', 'paste'].includes(all[j].name!)) j++
        if (all[j]?.text !== ',') break
        j = tableAt(j + 1)
      }
    }
    // x IN table reads a table too
    if (t.name === 'in' && isName(all[i + 1]) && all[i + 2]?.text !== '(') tableAt(i + 1)
  }
  return { sql, tokens: all, drop }
}

/**
 * The text again: the caller's own spacing between tokens, a comment between them as one space,
 * the trailing `;` gone and the `<database>.` prefixes dropped.
 */
export function writeBack({ sql, tokens, drop }: Inspected): string {
  let out = ''
  let last = -1
  tokens.forEach((t, i) => {
    if (drop.has(i)) return
    if (last >= 0) {
      // the spacing after the last token written (a dropped prefix takes its own spacing with it)
      const prev = tokens[last]
      const gap = sql.slice(prev.at + prev.text.length, tokens[last + 1].at)
      out += /^\s*$/.test(gap) ? gap : ' '
    }
    out += t.text
    last = i
  })
  return out
}

import type { BoundValue, BoundValues } from '..'
import { bind, literal, skipQuoted, type Literal } from './literal'

/**
 * The domain's bound values (`$1, $2, …` for an array, `$name` for an object, as the DuckDB
 * dialect writes them) printed into the text as literals: 18.16 binds nothing server-side. A
 * `{name:Type}` placeholder (the syntax current ClickHouse binds itself) takes an object's value
 * too. Every placeholder needs a value and every value must be used, so a typo fails instead of
 * binding nothing.
 */

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/
const DIGITS = /^[0-9]+/

/** A value as a literal; a negative number in parentheses (`x - -1` would still parse, `x--1` not). */
function printed(value: BoundValue): string {
  const text = literal(value as Literal)
  return text.startsWith('-') ? `(${text})` : text
}

/** The text with its `$` placeholders found, each as [start, end, key]. */
function dollars(sql: string): [number, number, string][] {
  const found: [number, number, string][] = []
  let i = 0
  while (i < sql.length) {
    const end = skipQuoted(sql, i)
    if (end > i) {
      i = end
      continue
    }
    if (sql[i] === '$' && !/[A-Za-z0-9_]/.test(sql[i - 1] ?? '')) {
      const m = DIGITS.exec(sql.slice(i + 1)) ?? NAME.exec(sql.slice(i + 1))
      if (m) {
        found.push([i, i + 1 + m[0].length, m[0]])
        i += 1 + m[0].length
        continue
      }
    }
    i++
  }
  return found
}

/** The statement with its bound values printed in. */
export function bindValues(sql: string, values: BoundValues | undefined): string {
  if (values === undefined) return sql
  const positional = Array.isArray(values)
  const named = values as Readonly<Record<string, BoundValue>>
  const used = new Set<string>()
  let out = ''
  let last = 0
  for (const [start, end, key] of dollars(sql)) {
    let value: BoundValue
    if (positional) {
      if (!/^\d+$/.test(key)) continue
      const index = Number(key) - 1
      if (index < 0 || index >= (values as readonly BoundValue[]).length) throw new RangeError(`no value for parameter $${key}`)
      value = (values as readonly BoundValue[])[index]
    } else {
      // a `$name` that names no value is left alone: property columns are written `$platform` quoted, but be lenient
      if (!Object.hasOwn(named, key)) continue
      value = named[key]
    }
    used.add(key)
    out += sql.slice(last, start) + printed(value)
    last = end
  }
  out += sql.slice(last)
  if (positional) {
    const unused = (values as readonly BoundValue[]).map((_, i) => String(i + 1)).filter((k) => !used.has(k))
    // a value not written $N may be written {pN:Type} (insertNumbers' list)
    const typed = unused.filter((k) => new RegExp(`\\{p${k}\\s*:`).test(out))
    const left = unused.filter((k) => !typed.includes(k))
    if (left.length) throw new RangeError(`value(s) $${left.join(', $')} not used by the statement`)
    return typed.length ? bind(out, Object.fromEntries(typed.map((k) => [`p${k}`, (values as readonly BoundValue[])[Number(k) - 1] as Literal]))) : out
  }
  const rest = Object.fromEntries(Object.entries(named).filter(([k]) => !used.has(k))) as Record<string, Literal>
  return Object.keys(rest).length > 0 || /\{[A-Za-z_]\w*\s*:/.test(out) ? bind(out, rest) : out
}

/** How many placeholders a text has: distinct `$n`, `$name` and `{name:Type}`. */
export function placeholderCount(sql: string): number {
  const keys = new Set(dollars(sql).map((d) => d[2]))
  let i = 0
  while (i < sql.length) {
    const end = skipQuoted(sql, i)
    if (end > i) {
      i = end
      continue
    }
    const m = sql[i] === '{' ? /^\{\s*([A-Za-z_]\w*)\s*:[^}]+\}/.exec(sql.slice(i)) : null
    if (m) keys.add(m[1])
    i++
  }
  return keys.size
}

/** The statements of a text, split at `;` outside quotes and comments; empty ones (only blanks and comments) left out. */
export function statementsOf(sql: string): string[] {
  const out: string[] = []
  let current = ''
  let meaningful = false
  let i = 0
  while (i < sql.length) {
    const end = skipQuoted(sql, i)
    if (end > i) {
      const piece = sql.slice(i, end)
      current += piece
      if (!piece.startsWith('--') && !piece.startsWith('/*')) meaningful = true
      i = end
      continue
    }
    if (sql[i] === ';') {
      if (meaningful) out.push(current.trim())
      current = ''
      meaningful = false
    } else {
      current += sql[i]
      if (!/\s/.test(sql[i])) meaningful = true
    }
    i++
  }
  if (meaningful) out.push(current.trim())
  return out
}

/** The first keyword of a statement, after blanks, comments and opening parentheses, upper-cased. */
export function firstKeyword(sql: string): string {
  let i = 0
  while (i < sql.length) {
    const end = skipQuoted(sql, i)
    if (end > i && (sql.startsWith('--', i) || sql.startsWith('/*', i))) {
      i = end
      continue
    }
    if (/[\s(]/.test(sql[i])) {
      i++
      continue
    }
    break
  }
  return (NAME.exec(sql.slice(i))?.[0] ?? '').toUpperCase()
}

/** A name quoted with backticks, for the product's checked ids (`$platform` included). */
export function quoteName(name: string): string {
  return `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``
}

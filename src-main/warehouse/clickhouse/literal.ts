/**
 * SQL literals for ClickHouse. Server-side query parameters (`{name:Type}` with `param_name=` in the
 * URL) do not exist in 18.16 ("Unknown setting param_x"), so bound values are printed as literals
 * here, and only here: strings are quoted with every byte that could end or bend the literal escaped.
 */
export type Literal = string | number | bigint | boolean | null | readonly Literal[]

const ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  "'": "\\'",
  '\0': '\\0',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
}

const NEEDS_ESCAPE = /[\\'\u0000-\u001f\u007f]/g
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** A quoted string literal. Text that is not valid Unicode (a lone surrogate) is refused, not mangled. */
export function quoteString(text: string): string {
  if (LONE_SURROGATE.test(text)) throw new RangeError('text contains a lone UTF-16 surrogate and cannot be sent as UTF-8')
  return `'${text.replace(NEEDS_ESCAPE, (c) => ESCAPES[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}'`
}

/** Any bound value as a literal: numbers must be finite, arrays nest, booleans are 1/0 (18.16 has no Bool). */
export function literal(value: Literal): string {
  if (value === null) return 'NULL'
  if (typeof value === 'string') return quoteString(value)
  if (typeof value === 'bigint') return value.toString()
  if (typeof value === 'boolean') return value ? '1' : '0'
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`number ${value} cannot be bound`)
    return Object.is(value, -0) ? '0' : String(value)
  }
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`
  throw new TypeError(`value of type ${typeof value} cannot be bound`)
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/

/** A database, table or column name, quoted with backticks; only plain names are accepted. */
export function identifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new RangeError(`not a plain identifier: ${JSON.stringify(name)}`)
  return `\`${name}\``
}

// A type name as written in `{name:Type}`: letters, digits, parentheses, commas, spaces and quoted zone names.
const TYPE_NAME = /^[A-Za-z][A-Za-z0-9_]*(\((?:[A-Za-z0-9_, ()]|'[A-Za-z0-9_/+-]*')*\))?$/

/**
 * Replaces `{name:Type}` placeholders (the syntax current ClickHouse binds server-side) by
 * `CAST(<literal> AS Type)`, outside string literals, quoted identifiers and comments. Every
 * placeholder must have a value and every value must be used, so a typo fails instead of binding nothing.
 */
export function bind(sql: string, params: Record<string, Literal>): string {
  const used = new Set<string>()
  let out = ''
  let i = 0
  while (i < sql.length) {
    const c = sql[i]
    const end = skipQuoted(sql, i)
    if (end > i) {
      out += sql.slice(i, end)
      i = end
      continue
    }
    if (c === '{') {
      const close = sql.indexOf('}', i)
      const inner = close < 0 ? '' : sql.slice(i + 1, close)
      const colon = inner.indexOf(':')
      const name = inner.slice(0, colon).trim()
      const type = inner.slice(colon + 1).trim()
      if (colon > 0 && IDENTIFIER.test(name) && TYPE_NAME.test(type)) {
        if (!Object.hasOwn(params, name)) throw new RangeError(`no value for parameter ${name}`)
        used.add(name)
        out += type === 'String' ? literal(params[name]) : `CAST(${literal(params[name])} AS ${type})`
        i = close + 1
        continue
      }
    }
    out += c
    i++
  }
  const unused = Object.keys(params).filter((k) => !used.has(k))
  if (unused.length) throw new RangeError(`parameter(s) not in the query: ${unused.join(', ')}`)
  return out
}

/** The index just past a quoted literal, identifier or comment starting at `i`, or `i` if none starts there. */
export function skipQuoted(sql: string, i: number): number {
  const c = sql[i]
  if (c === "'" || c === '"' || c === '`') {
    let j = i + 1
    while (j < sql.length && sql[j] !== c) j += sql[j] === '\\' ? 2 : 1
    return Math.min(j + 1, sql.length)
  }
  if (c === '-' && sql[i + 1] === '-') {
    const nl = sql.indexOf('\n', i)
    return nl < 0 ? sql.length : nl + 1
  }
  if (c === '/' && sql[i + 1] === '*') {
    const close = sql.indexOf('*/', i + 2)
    return close < 0 ? sql.length : close + 2
  }
  return i
}

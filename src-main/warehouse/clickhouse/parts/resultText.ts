import type { CustomSqlColumn } from '../../parts/customSql'
import type { ResultTextPart } from '../../parts/resultText'
import { quoteString } from '../literal'
import type { Shown } from '../shownColumns'
import { millisText, seconds, zoneLiteral } from '../zone'

/**
 * Custom SQL results as text, written by ClickHouse from the columns' types (formats:
 * parts/resultText.ts). 18.16 has no JSON writer (toJSONString, formatRow are current-only), so
 * JSON text is assembled here: strings escaped by replaceAll, lists and tuples element by element.
 * A DateTime without its own zone is an instant and shows in the project's zone; one with a zone
 * (a datetime property: the wall clock labelled UTC) shows in its zone. A column marked `shown`
 * (shownColumns.ts) holds a stored xwhen, datetime or boolean and is shown as DuckDB shows it.
 */

const MAX_SAFE = '9007199254740991'

/** The type inside Nullable(...) / LowCardinality(...), and whether it was Nullable. */
function unwrap(type: string): { base: string; nullable: boolean } {
  let base = type
  let nullable = false
  for (;;) {
    const m = /^(Nullable|LowCardinality)\((.*)\)$/.exec(base)
    if (!m) return { base, nullable }
    if (m[1] === 'Nullable') nullable = true
    base = m[2]
  }
}

/** The arguments of a parametrised type (Array(T), Tuple(A, B)), split at top-level commas. */
function typeArgs(type: string): string[] {
  const inner = type.slice(type.indexOf('(') + 1, -1)
  const args: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]
    if (c === '(') depth++
    else if (c === ')') depth--
    else if (c === "'") i = inner.indexOf("'", i + 1)
    else if (c === ',' && depth === 0) {
      args.push(inner.slice(start, i).trim())
      start = i + 1
    }
  }
  args.push(inner.slice(start).trim())
  return args
}

const isFloat = (t: string) => /^(Float32|Float64)$/.test(t)
const isWide = (t: string) => /^(U?Int(64|128|256))$/.test(t)
const isNarrow = (t: string) => /^(U?Int(8|16|32)|Decimal.*)$/.test(t)

/** JSON's escapes of a string (control characters as \u00XX). */
function jsonString(s: string): string {
  let x = `replaceAll(replaceAll(${s}, '\\\\', '\\\\\\\\'), '"', '\\\\"')`
  const short: Record<number, string> = { 8: 'b', 9: 't', 10: 'n', 12: 'f', 13: 'r' }
  for (let code = 0; code < 32; code++) {
    const hex = code.toString(16).padStart(2, '0')
    x = `replaceAll(${x}, '\\x${hex}', '\\\\${short[code] ?? `u00${hex}`}')`
  }
  return `concat('"', ${x}, '"')`
}

export function resultText(timeZone: string): ResultTextPart {
  const z = zoneLiteral(timeZone)

  /** A DateTime (or Date) as an export writes it. */
  function stamp(c: string, base: string): string {
    if (base === 'Date') return `toString(${c})`
    if (base.startsWith('DateTime64')) {
      // current versions only: milliseconds when the value has them
      const ms = `toUnixTimestamp64Milli(${c})`
      const zone = base.includes("'") ? '' : `, ${z}`
      return `concat(toString(toDateTime(${c})${zone}), if(${ms} % 1000 = 0, '', concat('.', ${millisText(ms)})))`
    }
    // toString writes yyyy-MM-dd HH:mm:ss on every version (formatDateTime's %M is the month's name on current ones)
    return base.includes("'") ? `toString(${c})` : `toString(${c}, ${z})`
  }

  /**
   * A stored value (not NULL) as DuckDB shows its type: epoch ms as `yyyy-MM-dd HH:mm:ss[.SSS]`
   * (xwhen in the project's zone, a datetime's wall clock as stored), a boolean as true/false.
   */
  function shownText(c: string, shown: Shown): string {
    if (shown === 'boolean') return `if(${c} != 0, 'true', 'false')`
    const zone = shown === 'instant' ? z : "'UTC'"
    // 18.16 writes DateTime 0 as 0000-00-00 00:00:00: that second is second 1's text ending in 0
    const text = `if(intDiv(${c}, 1000) = 0, concat(substring(toString(toDateTime(1), ${zone}), 1, 18), '0'), toString(${seconds(c)}, ${zone}))`
    return `concat(${text}, if(${c} % 1000 = 0, '', concat('.', ${millisText(c)})))`
  }

  /** A marked column as JSON text: a datetime as a string, a boolean as true/false. */
  function shownJson(c: string, type: string, shown: Shown): string {
    const { nullable } = unwrap(type)
    const v = nullable ? `assumeNotNull(${c})` : c
    const text = shown === 'boolean' ? shownText(v, shown) : `concat('"', ${shownText(v, shown)}, '"')`
    return nullable ? `if(isNull(${c}), 'null', ${text})` : text
  }

  /** A marked column as a CSV field (its text never needs quotes); NULL an empty field. */
  function shownField(c: string, type: string, shown: Shown): string {
    const { nullable } = unwrap(type)
    return nullable ? `if(isNull(${c}), '', ${shownText(`assumeNotNull(${c})`, shown)})` : shownText(c, shown)
  }

  /** A non-NULL value as JSON text. */
  function json(c: string, type: string, depth = 0): string {
    const { base, nullable } = unwrap(type)
    const value = jsonOf(c, base, depth)
    return nullable ? `if(isNull(${c}), 'null', ${value})` : value
  }

  function jsonOf(c: string, base: string, depth = 0): string {
    if (isNarrow(base)) return `toString(${c})`
    if (isWide(base)) return `if(${c} BETWEEN -${MAX_SAFE} AND ${MAX_SAFE}, toString(${c}), concat('"', toString(${c}), '"'))`
    if (isFloat(base)) return `if(isFinite(${c}), toString(${c}), concat('"', toString(${c}), '"'))`
    if (base.startsWith('DateTime') || base === 'Date') return jsonString(stamp(c, base))
    if (base === 'Nothing') return `'null'`
    if (base.startsWith('Array(')) {
      const [element] = typeArgs(base)
      // a parameter per depth, named apart from any column of the query (18.16 would put an alias in its place)
      const x = `_uba_e${depth}`
      return `concat('[', arrayStringConcat(arrayMap(${x} -> ${json(x, element, depth + 1)}, ${c}), ','), ']')`
    }
    if (base.startsWith('Tuple(')) {
      const parts = typeArgs(base).map((t, i) => json(`tupleElement(${c}, ${i + 1})`, t.replace(/^[A-Za-z_][A-Za-z0-9_]* (?=[A-Z])/, ''), depth))
      return `concat('[', ${parts.join(", ',', ")}, ']')`
    }
    return jsonString(`toString(${c})`)
  }

  /** A value as its CSV text (NULL stays NULL). */
  function csvText(c: string, type: string): string {
    const { base } = unwrap(type)
    if (base.startsWith('DateTime') || base === 'Date') return stamp(c, base)
    if (base.startsWith('Array(') || base.startsWith('Tuple(')) return jsonOf(c, base)
    return `toString(${c})`
  }

  /** An RFC 4180 field: quoted (quotes doubled) when it holds a comma, a quote or a line break. */
  function csvField(c: string, type: string): string {
    const { nullable } = unwrap(type)
    const text = csvText(c, type)
    const field = `if(match(${text}, '[",\\r\\n]'), concat('"', replaceAll(${text}, '"', '""'), '"'), ${text})`
    return nullable ? `if(isNull(${c}), '', assumeNotNull(${field}))` : field
  }

  const name = (c: CustomSqlColumn) => `\`${c.name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``
  const typeOf = (c: CustomSqlColumn) => String((c.type as { clickhouse?: string }).clickhouse ?? 'String')
  const shownOf = (c: CustomSqlColumn) => (c.type as { shown?: Shown }).shown
  const jsonValue = (c: CustomSqlColumn) => {
    const shown = shownOf(c)
    return shown ? shownJson(name(c), typeOf(c), shown) : json(name(c), typeOf(c))
  }
  const field = (c: CustomSqlColumn) => {
    const shown = shownOf(c)
    return shown ? shownField(name(c), typeOf(c), shown) : csvField(name(c), typeOf(c))
  }

  return {
    // keys are JSON-escaped here and printed as literals: nothing of a key reaches SQL unquoted
    resultLines(inner, columns, format, keys) {
      const source = `(\n${inner}\n) AS q`
      if (format === 'json') {
        const pairs = columns.map((c, i) => `${quoteString(`${JSON.stringify(keys[i])}:`)}, ${jsonValue(c)}`)
        return { sql: `SELECT concat('{', ${pairs.join(", ',', ")}, '}') AS line FROM ${source}`, values: [] }
      }
      const fields = columns.map(field)
      return { sql: `SELECT concat(${fields.length === 1 ? `${fields[0]}, ''` : fields.join(", ',', ")}) AS line FROM ${source}`, values: [] }
    },
    // an instant of epoch milliseconds (the sequence export's e.xwhen), in the project's zone
    exportStamp: (value) => `concat(toString(${seconds(value)}, ${z}), if(${value} % 1000 = 0, '', concat('.', ${millisText(value)})))`,
  }
}

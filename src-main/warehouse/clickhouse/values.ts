import { literal, LONE_SURROGATE, type Literal } from './literal'

/**
 * Values read from ClickHouse, converted by the column type the server reports:
 * - Int64/UInt64 (and wider): ClickHouse quotes them in JSON ("123"), TSV has the digits; both become
 *   `bigint`, exact, as DuckDB's node API returns BIGINT (one policy turns them into JSON later).
 * - other integers and floats: `number`. In JSON 18.16 writes nan and +-inf as null: exact only in TSV.
 * - Date: the text `yyyy-MM-dd` (a calendar day, no zone). DateTime: a JS `Date`, the wall time
 *   read in the column's zone (`DateTime('Asia/Shanghai')`) or else the server's zone.
 * - Nullable(T): null or T; Array(T): an array of T. Anything else stays as the server wrote it.
 */
export type Value = string | number | bigint | boolean | Date | null | Value[]

const WIDE_INT = /^U?Int(64|128|256)$/
const NUMBER = /^(U?Int(8|16|32)|Float(32|64))$/

function unwrap(type: string, wrapper: string): string | null {
  return type.startsWith(`${wrapper}(`) && type.endsWith(')') ? type.slice(wrapper.length + 1, -1) : null
}

/** The zone a DateTime column is shown in, or null for the server's. */
function zoneOf(type: string): string | null | undefined {
  if (type === 'DateTime') return null
  const m = /^DateTime\('([^']+)'\)$/.exec(type)
  return m ? m[1] : undefined
}

/** Converts one JSONCompact value of a column of `type`. */
export function fromJson(value: unknown, type: string, serverZone: string): Value {
  if (value === null) return null
  const nullable = unwrap(type, 'Nullable') ?? unwrap(type, 'LowCardinality')
  if (nullable) return fromJson(value, nullable, serverZone)
  const element = unwrap(type, 'Array')
  if (element) return (value as unknown[]).map((v) => fromJson(v, element, serverZone))
  if (WIDE_INT.test(type)) return BigInt(value as string)
  const zone = zoneOf(type)
  if (zone !== undefined) return wallTimeToDate(value as string, zone ?? serverZone)
  return value as Value
}

const TSV_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', '0': '\0', "'": "'", '\\': '\\' }

/** Undoes TabSeparated escaping (`\\`, `\t`, `\n`, `\0`, `\'` ...). */
export function unescapeTsv(text: string): string {
  return text.includes('\\') ? text.replace(/\\(.)/gs, (_, c: string) => TSV_ESCAPES[c] ?? c) : text
}

/** Converts one TabSeparated field (still escaped) of a column of `type`. */
export function fromTsv(field: string, type: string, serverZone: string): Value {
  const nullable = unwrap(type, 'Nullable')
  if (nullable) return field === '\\N' ? null : fromTsv(field, nullable, serverZone)
  // an array is written as its literal (strings quoted and escaped inside), not TSV-escaped again
  const element = unwrap(type, 'Array')
  if (element) return parseArray(field, element, serverZone)
  return fromText(unescapeTsv(field), type, serverZone)
}

function fromText(text: string, type: string, serverZone: string): Value {
  const inner = unwrap(type, 'LowCardinality')
  if (inner) return fromText(text, inner, serverZone)
  const element = unwrap(type, 'Array')
  if (element) return parseArray(text, element, serverZone)
  if (WIDE_INT.test(type)) return BigInt(text)
  if (NUMBER.test(type)) return text === 'nan' ? NaN : text === 'inf' || text === '+inf' ? Infinity : text === '-inf' ? -Infinity : Number(text)
  const zone = zoneOf(type)
  if (zone !== undefined) return wallTimeToDate(text, zone ?? serverZone)
  return text
}

/** Parses an array as ClickHouse prints it inside text formats: `[1,2]`, `['a\'b',NULL]`, nested. */
function parseArray(text: string, element: string, serverZone: string): Value[] {
  const out: Value[] = []
  let i = 1
  const nullable = unwrap(element, 'Nullable')
  const base = nullable ?? element
  while (i < text.length - 1) {
    let token: string
    let quoted = false
    if (text[i] === "'") {
      let j = i + 1
      while (text[j] !== "'") j += text[j] === '\\' ? 2 : 1
      token = unescapeTsv(text.slice(i + 1, j))
      quoted = true
      i = j + 1
    } else if (text[i] === '[') {
      let depth = 0
      let j = i
      do {
        if (text[j] === "'") {
          j++
          while (text[j] !== "'") j += text[j] === '\\' ? 2 : 1
        } else if (text[j] === '[') depth++
        else if (text[j] === ']') depth--
        j++
      } while (depth > 0)
      token = text.slice(i, j)
      i = j
    } else {
      const j = text.indexOf(',', i)
      const end = j < 0 ? text.length - 1 : j
      token = text.slice(i, end)
      i = end
    }
    out.push(!quoted && nullable && token === 'NULL' ? null : fromText(token, base, serverZone))
    if (text[i] === ',') i++
  }
  return out
}

const offsets = new Map<string, Intl.DateTimeFormat>()

/** The zone's offset from UTC, in ms, at the instant `ms`. */
function offsetAt(ms: number, zone: string): number {
  let format = offsets.get(zone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
    offsets.set(zone, format)
  }
  const p = Object.fromEntries(format.formatToParts(new Date(ms)).map((x) => [x.type, x.value]))
  return Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second) - ms
}

/**
 * `yyyy-MM-dd HH:mm:ss` as shown in `zone` -> the instant. 18.16 shows the epoch (0) as
 * `0000-00-00 00:00:00`. In the hour a clock is set back the wall time is ambiguous (the earlier
 * instant is taken): select toUnixTimestamp(t) where that matters.
 */
export function wallTimeToDate(text: string, zone: string): Date {
  if (text.startsWith('0000-00-00')) return new Date(0)
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text)
  if (!m) throw new RangeError(`not a DateTime: ${text}`)
  const wall = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6])
  let ms = wall - offsetAt(wall, zone)
  ms = wall - offsetAt(ms, zone)
  return new Date(ms)
}

const TSV_NEEDS_ESCAPE = /[\\\t\n\r\0\b\f']/g
const TSV_ESCAPE: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\\0', '\b': '\\b', '\f': '\\f', "'": "\\'" }

/**
 * One value as a TabSeparated field for INSERT. A `Date` is written as epoch seconds (DateTime
 * parses those, whatever the zone) and must not carry milliseconds: DateTime would drop them.
 */
export function toTsv(value: Literal | Date): string {
  if (value === null) return '\\N'
  if (value instanceof Date) {
    const ms = value.getTime()
    if (!Number.isFinite(ms) || ms % 1000 !== 0) throw new RangeError(`${value.toISOString?.() ?? 'invalid date'} has milliseconds, which a DateTime column cannot keep`)
    return String(ms / 1000)
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf'
  if (typeof value === 'string' && LONE_SURROGATE.test(value)) throw new RangeError('text contains a lone UTF-16 surrogate and cannot be sent as UTF-8')
  // an array goes as its literal: 18.16 parses it from the field as is (its strings are escaped already)
  if (Array.isArray(value)) return literal(value)
  const text = typeof value === 'string' ? value : literal(value)
  return text.replace(TSV_NEEDS_ESCAPE, (c) => TSV_ESCAPE[c])
}

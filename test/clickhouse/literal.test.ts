import { describe, expect, it } from 'vitest'
import { bind, identifier, literal, quoteString } from '../../src-main/warehouse/clickhouse/literal'
import { toTsv, unescapeTsv, wallTimeToDate } from '../../src-main/warehouse/clickhouse/values'
import { parseError } from '../../src-main/warehouse/clickhouse/errors'

describe('ClickHouse literals (18.16 has no server-side query parameters)', () => {
  it('quotes, backslashes, NUL and control characters are escaped; unicode passes as is', () => {
    expect(quoteString("it's")).toBe("'it\\'s'")
    expect(quoteString('a\\b')).toBe("'a\\\\b'")
    expect(quoteString("\\'")).toBe("'\\\\\\''")
    expect(quoteString('a\0b')).toBe("'a\\0b'")
    expect(quoteString('l1\nl2\r\t\b\f')).toBe("'l1\\nl2\\r\\t\\b\\f'")
    expect(quoteString('\u0001\u001f\u007f')).toBe("'\\x01\\x1f\\x7f'")
    expect(quoteString('日本 😀 é')).toBe("'日本 😀 é'")
  })

  it('text with a lone surrogate is refused rather than sent as a replacement character', () => {
    expect(() => quoteString('a\ud800b')).toThrow(/surrogate/)
    expect(() => quoteString('\udc00')).toThrow(/surrogate/)
    expect(quoteString('\ud83d\ude00')).toBe("'😀'")
  })

  it('numbers must be finite; booleans are 1/0; arrays nest; bigints keep every digit', () => {
    expect(literal(-0)).toBe('0')
    expect(literal(1.5e-7)).toBe('1.5e-7')
    expect(() => literal(NaN)).toThrow(RangeError)
    expect(() => literal(Infinity)).toThrow(RangeError)
    expect(literal(true)).toBe('1')
    expect(literal(null)).toBe('NULL')
    expect(literal(18446744073709551615n)).toBe('18446744073709551615')
    expect(literal(['a', ["b'"], null])).toBe("['a', ['b\\''], NULL]")
  })

  it('identifiers are plain names only', () => {
    expect(identifier('event_vd')).toBe('`event_vd`')
    for (const bad of ['a b', 'a`b', '1a', 'a;DROP', '', 'a.b']) expect(() => identifier(bad)).toThrow(RangeError)
  })

  it('bind replaces {name:Type} outside strings and comments, and refuses missing or unused values', () => {
    expect(bind('SELECT {s:String}, {n:Int64}, {a:Array(String)}', { s: "o'k", n: 5, a: ['x'] })).toBe("SELECT 'o\\'k', CAST(5 AS Int64), CAST(['x'] AS Array(String))")
    expect(bind("SELECT '{s:String}', `{s:String}` -- {s:String}\n, {s:String} /* {s:String} */", { s: 'v' })).toBe("SELECT '{s:String}', `{s:String}` -- {s:String}\n, 'v' /* {s:String} */")
    expect(bind("SELECT toDateTime({t:UInt32}, 'UTC') = {d:DateTime('Asia/Shanghai')}", { t: 1, d: '2024-01-01 00:00:00' })).toBe(
      "SELECT toDateTime(CAST(1 AS UInt32), 'UTC') = CAST('2024-01-01 00:00:00' AS DateTime('Asia/Shanghai'))",
    )
    expect(() => bind('SELECT {s:String}', {})).toThrow(/no value for parameter s/)
    expect(() => bind('SELECT 1', { s: 'x' })).toThrow(/not in the query: s/)
    // a type that is not a type name is not a placeholder, so its value is unused
    expect(() => bind('SELECT {s:String); DROP}', { s: 'x' })).toThrow(/not in the query/)
  })

  it('TabSeparated fields escape what would end a field or a row, and read back the same', () => {
    const text = "tab\there\nnew\\back'q\0nul"
    expect(toTsv(text)).toBe("tab\\there\\nnew\\\\back\\'q\\0nul")
    expect(unescapeTsv(toTsv(text))).toBe(text)
    expect(toTsv(null)).toBe('\\N')
    expect(toTsv(NaN)).toBe('nan')
    expect(toTsv(new Date(1_700_000_000_000))).toBe('1700000000')
    expect(() => toTsv(new Date(1_700_000_000_123))).toThrow(/milliseconds/)
    expect(toTsv(["a'b", 'c\td'])).toBe("['a\\'b', 'c\\td']")
  })

  it('a DateTime wall time is read in its zone', () => {
    expect(wallTimeToDate('2024-01-01 08:00:00', 'Asia/Shanghai').toISOString()).toBe('2024-01-01T00:00:00.000Z')
    expect(wallTimeToDate('2024-07-01 02:00:00', 'America/New_York').toISOString()).toBe('2024-07-01T06:00:00.000Z')
    expect(wallTimeToDate('0000-00-00 00:00:00', 'UTC').getTime()).toBe(0)
  })

  it('errors are read from both the 18.16 and the current text', () => {
    const old = parseError('Code: 62, e.displayText() = DB::Exception: Syntax error: failed at position 1: SELEC 1, e.what() = DB::Exception', 'q')
    expect([old?.code, old?.kind, old?.message]).toEqual([62, 'syntax', 'ClickHouse error 62: Syntax error: failed at position 1: SELEC 1'])
    const current = parseError("Code: 60. DB::Exception: Table default.nope does not exist. (UNKNOWN_TABLE) (version 24.3.1.1)\n", 'q')
    expect([current?.code, current?.kind, current?.message]).toEqual([60, 'unknown-name', 'ClickHouse error 60: Table default.nope does not exist'])
    const cut = parseError('["1"],\n["2"]Code: 394, e.displayText() = DB::Exception: Query was cancelled, e.what() = DB::Exception\n', 'q', true)
    expect([cut?.code, cut?.kind]).toEqual([394, 'cancelled'])
    expect(parseError('no error here', 'q')).toBeNull()
  })
})

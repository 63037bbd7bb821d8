import { describe, expect, it } from 'vitest'
import type { AppendType } from '../../src-main/warehouse'
import { toTsv } from '../../src-main/warehouse/clickhouse/values'
import { tsvLine } from '../../src-main/warehouse/clickhouse/writes'

describe('the rows appendRows sends (TabSeparated lines, written by type)', () => {
  const types: AppendType[] = ['bigint', 'integer', 'string', 'number', 'boolean', 'datetime', 'array<string>']

  it('writes each value as the client’s general toTsv would, after the product’s conversions', () => {
    const rows: unknown[][] = [
      [9007199254740993n, 7, "it's\ta\nb\\c\0\b\f\r", 1.5, true, 1_700_000_000_123_999n, ['a', null, "q'\t"]],
      [-1, -2147483648, '日本 😀', NaN, false, -1n, []],
      [null, null, null, Infinity, null, null, null],
      [undefined, 0, '', -Infinity, null, 0, undefined],
    ]
    const expected = [
      // datetime: µs to epoch ms, rounded down (-1 µs is -1 ms); a missing list is [] (no Nullable(Array))
      [toTsv(9007199254740993n), '7', toTsv("it's\ta\nb\\c\0\b\f\r"), '1.5', '1', '1700000000123', toTsv(['a', null, "q'\t"])],
      ['-1', '-2147483648', '日本 😀', 'nan', '0', '-1', '[]'],
      ['\\N', '\\N', '\\N', 'inf', '\\N', '\\N', '[]'],
      ['\\N', '0', '', '-inf', '\\N', '0', '[]'],
    ]
    rows.forEach((row, i) => expect(tsvLine(row, types)).toBe(expected[i].join('\t') + '\n'))
    expect(tsvLine(rows[0], types)).toBe("9007199254740993\t7\tit\\'s\\ta\\nb\\\\c\\0\\b\\f\\r\t1.5\t1\t1700000000123\t['a', NULL, 'q\\'\\t']\n")
  })

  it('refuses a row of the wrong width and text that is not valid Unicode', () => {
    expect(() => tsvLine(['a'], ['string', 'string'])).toThrow(/1 values for 2 columns/)
    expect(() => tsvLine(['bad \ud800 text'], ['string'])).toThrow(/lone UTF-16 surrogate/)
    expect(tsvLine(['ok 😀'], ['string'])).toBe('ok 😀\n')
  })
})

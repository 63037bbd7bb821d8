import type { TextPart } from '../../parts/text'

/**
 * Text. A number reads as DuckDB writes it where the products' values live: a whole number below
 * 1e15 without ".0", others as the shortest text that reads back the same (DuckDB writes exponents
 * as 1e+20 and 1e-05 and keeps ".0" on whole numbers of 1e15 and more; ClickHouse writes those
 * without exponent and ".0": see docs/clickhouse.md). A boolean reads true/false (stored as UInt8).
 */
export const text: TextPart = {
  contains: (text, part) => `(position(${text}, ${part}) > 0)`,
  endsWith: (text, part) => `endsWith(${text}, ${part})`,
  asText(v, type) {
    if (type === 'number') return `if(${v} = trunc(${v}) AND abs(${v}) < 1e15, toString(toInt64(${v})), toString(${v}))`
    if (type === 'boolean') return `if(isNull(${v}), NULL, if(${v} != 0, 'true', 'false'))`
    // toString writes yyyy-MM-dd HH:mm:ss on every version (formatDateTime's %M changed meaning)
    if (type === 'datetime') return `toString(${v})`
    return `toString(${v})`
  },
}

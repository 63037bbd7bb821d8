import type { TextPart } from '../../parts/text'
import { time } from './time'

export const text: TextPart = {
  contains: (text, part) => `contains(${text}, ${part})`,
  endsWith: (text, part) => `ends_with(${text}, ${part})`,
  asText(v, type) {
    // 5.0 reads as 5
    if (type === 'number') return `CASE WHEN ${v} = trunc(${v}) AND abs(${v}) < 1e15 THEN CAST(CAST(${v} AS BIGINT) AS VARCHAR) ELSE CAST(${v} AS VARCHAR) END`
    if (type === 'datetime') return time.formatStamp(v)
    return `CAST(${v} AS VARCHAR)`
  },
}

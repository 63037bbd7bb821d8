import type { SqlParams } from '../dialect'
import type { BoundValue } from '..'
import { literal } from './literal'

/**
 * ClickHouse's bound values: 18.16 has no server-side parameters (docs/clickhouse.md), so each
 * value is printed where it is used as a checked literal (literal.ts escapes every byte that could
 * end or bend it) and `values` stays empty: a statement from this dialect carries no placeholders.
 */
export class LiteralParams implements SqlParams {
  readonly values: BoundValue[] = []

  add(value: BoundValue): string {
    return literal(value)
  }

  list(values: (string | number)[]): string {
    return values.map((v) => literal(v)).join(', ')
  }
}

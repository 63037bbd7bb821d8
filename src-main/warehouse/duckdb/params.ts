import type { SqlParams as Params } from '../dialect'
import type { BoundValue } from '..'

/**
 * DuckDB's bound values: $1, $2 ... in the order they are added. The domain gets one from
 * `dialect.params()`; folders not yet moved onto the dialect still construct it here.
 */
export class SqlParams implements Params {
  readonly values: BoundValue[] = []

  add(value: BoundValue): string {
    this.values.push(value)
    return `$${this.values.length}`
  }

  list(values: (string | number)[]): string {
    return values.map((v) => this.add(v)).join(', ')
  }
}

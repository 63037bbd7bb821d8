import type { Dialect } from '../../../warehouse/dialect'
import { literal } from '../sql'

/**
 * SQL pieces of the generator, written through the dialect. Everything random is a hash of the
 * seed and a row's identity (user, day, session, slot) and a fixed salt per decision, never
 * `random()`: the same inputs give the same data on every run and thread count, and no decision
 * depends on another's draw order.
 */

export type SqlValue = string | number | boolean | null | string[]

/** SplitMix64 of a number: the stream constant of one seed and decision. */
function mix(x: bigint): bigint {
  const m = (1n << 64n) - 1n
  let z = (x + 0x9e3779b97f4a7c15n) & m
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & m
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & m
  return z ^ (z >> 31n)
}

/** The generator's SQL vocabulary for one seed, on one dialect. */
export class SampleSql {
  constructor(
    readonly d: Dialect,
    private readonly seed: number,
  ) {}

  /** A value for the SQL text: a finite number, a string or list literal; null is NULL. */
  value(v: SqlValue): string {
    if (v === null) return 'NULL'
    if (Array.isArray(v)) return this.list(v)
    if (typeof v === 'boolean') return v ? 'true' : 'false'
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new Error(`not a finite number: ${v}`)
      return String(v)
    }
    return literal(v)
  }

  /** A list literal. */
  list(values: (string | number)[]): string {
    return this.d.list(values.map((v) => this.value(v)))
  }

  /** The element of a constant list at a 0-based position (SQL). */
  at(values: (string | number)[] | string, position: string): string {
    return this.d.item(typeof values === 'string' ? values : this.list(values), `${position} + 1`)
  }

  int(expr: string): string {
    return this.d.cast(expr, 'integer')
  }

  text(expr: string): string {
    return this.d.cast(expr, 'string')
  }

  /**
   * A uniform draw in [0, 1) for the row identified by `key` (and `sub`, a number below 1024 such
   * as a slot or a product's position), in the stream of the seed and `salt`, which tells the
   * decisions of one row apart.
   */
  draw(salt: number, key: string, sub?: string): string {
    const stream = mix(BigInt(this.seed) * 256n + BigInt(salt))
    return this.d.uniform(stream, sub === undefined ? key : `(${key}) * 1024 + (${sub})`)
  }

  /** Picks one of `choices` by weight for a draw `r` (a column name: it is repeated in every branch). */
  pick(r: string, choices: [string | number | null, number][]): string {
    const total = choices.reduce((sum, [, w]) => sum + w, 0)
    let seen = 0
    const branches = choices.slice(0, -1).map(([v, w]) => {
      seen += w
      return `WHEN ${r} < ${seen / total} THEN ${this.value(v)}`
    })
    return `CASE ${branches.join(' ')} ELSE ${this.value(choices[choices.length - 1][0])} END`
  }

  /**
   * A small temporary lookup table from rows, with `cum`: the share of the total weight before
   * each row, so that `pickJoin` picks a row by weight, and `share`: its own.
   */
  weightedTable(name: string, rows: { [column: string]: SqlValue; weight: number }[], partition?: string): string {
    const columns = Object.keys(rows[0]).filter((c) => c !== 'weight')
    return this.d.weightedTable(name, columns, rows.map((row) => ({ weight: row.weight, values: columns.map((c) => this.value(row[c])) })), partition)
  }
}

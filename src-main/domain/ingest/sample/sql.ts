import { literal } from '../sql'

/**
 * SQL pieces of the generator. Everything random is a hash of the seed and a row's identity (user,
 * day, session, slot) and a fixed salt per decision, never `random()`: the same inputs give the
 * same data on every run and thread count, and no decision depends on another's draw order.
 */

export type SqlValue = string | number | boolean | null | string[]

/** A value for the SQL text: a finite number, a string or list literal; null is NULL. */
export function value(v: SqlValue): string {
  if (v === null) return 'NULL'
  if (Array.isArray(v)) return list(v)
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`not a finite number: ${v}`)
    return String(v)
  }
  return literal(v)
}

/** A list literal. */
export function list(values: (string | number)[]): string {
  return `[${values.map(value).join(', ')}]`
}

/** SplitMix64 of a number: the stream constant of one seed and decision. */
function mix(x: bigint): bigint {
  const m = (1n << 64n) - 1n
  let z = (x + 0x9e3779b97f4a7c15n) & m
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & m
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & m
  return z ^ (z >> 31n)
}

/**
 * A uniform draw in [0, 1) for the row identified by `key` (and `sub`, a number below 1024 such
 * as a slot or a product's position): DuckDB's 64-bit hash of the key XOR a constant made from the
 * seed and `salt`, which tells the decisions of one row apart. (Hashing several arguments at once
 * combines them too weakly: draws for different salts came out correlated.)
 */
export function draw(seed: number, salt: number, key: string, sub?: string): string {
  const stream = mix(BigInt(seed) * 256n + BigInt(salt))
  const id = sub === undefined ? key : `(${key}) * 1024 + (${sub})`
  return `((hash(xor(${stream}::UBIGINT, (${id})::UBIGINT)) >> 11)::DOUBLE * 1.1102230246251565e-16)`
}

/** Picks one of `choices` by weight for a draw `r` (a column name: it is repeated in every branch). */
export function pick(r: string, choices: [string | number | null, number][]): string {
  const total = choices.reduce((sum, [, w]) => sum + w, 0)
  let seen = 0
  const branches = choices.slice(0, -1).map(([v, w]) => {
    seen += w
    return `WHEN ${r} < ${seen / total} THEN ${value(v)}`
  })
  return `CASE ${branches.join(' ')} ELSE ${value(choices[choices.length - 1][0])} END`
}

/**
 * A small temporary lookup table from rows, with `cum`: the share of the total weight before
 * each row, so that `ASOF JOIN t ON r >= t.cum` picks a row by weight, and `share`: its own.
 */
export function weightedTable(name: string, rows: { [column: string]: SqlValue; weight: number }[], partition?: string): string {
  const columns = Object.keys(rows[0]).filter((c) => c !== 'weight')
  const values = rows.map((row, i) => `(${[i, row.weight, ...columns.map((c) => value(row[c]))].join(', ')})`)
  const over = partition ? `PARTITION BY ${partition}` : ''
  return `CREATE OR REPLACE TEMP TABLE ${name} AS
    SELECT * EXCLUDE (w), (sum(w) OVER (${over} ORDER BY i) - w) / sum(w) OVER (${over}) AS cum, w / sum(w) OVER (${over}) AS share
    FROM (VALUES ${values.join(', ')}) v(i, w, ${columns.join(', ')})`
}

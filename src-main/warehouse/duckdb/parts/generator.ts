import type { GeneratorPart } from '../../parts/generator'

export const generator: GeneratorPart = {
  // DuckDB's 64-bit hash of the id XOR the stream, top 53 bits as a fraction. (Hashing several
  // arguments at once combines them too weakly: draws for different streams came out correlated.)
  uniform: (stream, id) => `((hash(xor(${stream}::UBIGINT, (${id})::UBIGINT)) >> 11)::DOUBLE * 1.1102230246251565e-16)`,
  weightedTable(name, columns, rows, partition) {
    const values = rows.map((row, i) => `(${[i, row.weight, ...row.values].join(', ')})`)
    const over = partition ? `PARTITION BY ${partition}` : ''
    return `CREATE OR REPLACE TEMP TABLE ${name} AS
    SELECT * EXCLUDE (w), (sum(w) OVER (${over} ORDER BY i) - w) / sum(w) OVER (${over}) AS cum, w / sum(w) OVER (${over}) AS share
    FROM (VALUES ${values.join(', ')}) v(i, w, ${columns.join(', ')})`
  },
  pickJoin: (table, alias, draw, match) => `ASOF JOIN ${table} ${alias} ON ${match ? `${match} AND ` : ''}${draw} >= ${alias}.cum`,
  item: (list, index) => `${list}[${index}]`,
  epochSeconds: (instant) => `epoch(${instant})`,
  instantAt: (seconds) => `to_timestamp(${seconds})`,
  // FSST and ALP cost a quarter of the write time and save almost nothing on generated short,
  // repetitive strings and two-decimal numbers (dictionary and RLE still apply)
  bulkWrite: () => ({ before: ["SET disabled_compression_methods = 'fsst,alp,alprd'"], after: ['RESET disabled_compression_methods'] }),
  dropTempTable: (name) => `DROP TABLE IF EXISTS temp.${name}`,
}

import type { NumbersPart } from '../../parts/numbers'

export const numbers: NumbersPart = {
  intDiv: (a, b) => `${a} // ${b}`,
  bitOr: (values) => values.join(' | '),
  bitAnd: (a, b) => `${a} & ${b}`,
  shiftLeft: (a, n) => `${a} << ${n}`,
  shiftRight: (a, n) => `${a} >> ${n}`,
  bitOrAgg: (a) => `bit_or(${a})`,
  series: (from, to) => `range(${from}, ${to})`,
  seriesTable: (from, to, name, column) => `range(${from}, ${to}) ${name}(${column})`,
  quantile: (v, q) => `quantile_disc(${v}, ${q})`,
  every: (condition) => `bool_and(${condition})`,
}

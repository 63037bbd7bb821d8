import type { ImportsPart } from '../../parts/imports'

export const imports: ImportsPart = {
  valuesByIndex: (values, index, value) => `unnest(generate_series(0, ${values.length - 1})) AS ${index}, unnest([${values.join(', ')}]) AS ${value}`,
  formatStampMillis: (local) => `strftime(${local}, '%Y-%m-%d %H:%M:%S.%g')`,
}

import type { SamplePart } from '../../parts/sample'

export const sample: SamplePart = {
  userSample: (factor, id) => (factor >= 1 ? 'true' : `(hash(${id}) % 10000) < ${Math.round(factor * 10000)}`),
  tableSample: (percent) => (percent < 100 ? ` TABLESAMPLE ${percent.toFixed(6)}% (system)` : ''),
}

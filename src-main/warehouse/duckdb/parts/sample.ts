import type { SamplePart } from '../../parts/sample'

export const sample: SamplePart = {
  userSample: (factor, id) => (factor >= 1 ? 'true' : `(hash(${id}) % 10000) < ${Math.round(factor * 10000)}`),
  tableSample: (percent) => (percent < 100 ? ` TABLESAMPLE ${percent.toFixed(6)}% (system)` : ''),
  // one pass: a sample read twice would be two different samples
  valueCounts: (q) => `
    WITH scoped AS (SELECT ${q.value} AS x, count(*) OVER () AS total FROM ${q.from}),
         spread AS (SELECT ${q.spread} AS v, total FROM scoped),
         grouped AS (SELECT v, grouping(v) AS whole, count(*) AS n, any_value(total) AS total FROM spread GROUP BY GROUPING SETS ((v), ()))
    SELECT v, whole, n, total FROM grouped
    WHERE whole = 1 OR v IS NULL OR (true${q.match ? ` AND ${q.match}` : ''})
    ORDER BY whole DESC, v IS NOT NULL, n DESC, v
    LIMIT ${q.limit}`,
}

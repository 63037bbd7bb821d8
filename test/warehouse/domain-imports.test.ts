import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

// The domain runs SQL through the Warehouse seam only: no file under src-main/domain may import
// DuckDB's API (custom SQL results are written by the Dialect's resultText part).
const NOT_YET: string[] = []

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []))
}

describe('the engine seam', () => {
  it('keeps @duckdb/node-api out of the domain', () => {
    const root = join(__dirname, '../../src-main/domain')
    const all = files(root)
    expect(all.length).toBeGreaterThan(100)
    const importing = all.filter((f) => /from '@duckdb\/node-api'|import\('@duckdb\/node-api'\)|require\('@duckdb\/node-api'\)/.test(readFileSync(f, 'utf8'))).map((f) => relative(root, f).split('\\').join('/'))
    expect(importing.sort()).toEqual(NOT_YET)
  })
})

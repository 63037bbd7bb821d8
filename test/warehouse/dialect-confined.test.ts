import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * Engine SQL text lives in src-main/warehouse/ (the Dialect and its DuckDB parts): no other source
 * file writes DuckDB-only functions or syntax, and no domain file imports the DuckDB dialect's code. Comment lines
 * are not read (they may name what the dialect writes).
 */
const ROOT = join(__dirname, '..', '..', 'src-main')

/** DuckDB-only functions and syntax, as they appear in SQL text. */
const DUCKDB_ONLY: RegExp[] = [
  /(?<![.\w])(list_[a-z_]+|epoch_(us|ms|ns)|bitstring_agg|bit_count|bit_or|to_(days|weeks|months|hours|minutes|seconds)|make_timestamp)\(/,
  /(?<![.\w])(strftime|strptime|date_trunc|datediff|date_diff|to_timestamp|current_setting|quantile_disc|any_value|bool_and)\(/,
  /(?<![.\w])(hash|stats|unnest|flatten|len|range|contains|ends_with)\(/,
  /TABLESAMPLE|USING SAMPLE|GROUP BY ALL|\* EXCLUDE|TEMP TABLE/,
  // the file readers and their settings (stage.ts)
  /(?<![.\w])(read_csv|read_json|read_json_objects|read_parquet|to_json)\(|store_rejects|preserve_insertion_order/,
  /::[A-Z]+/,
]

/** The domain gets the dialect from its environment: only the composition root (app.ts) picks DuckDB's. */
const DOMAIN_IMPORT = /from '[./]*warehouse\/duckdb\//

/**
 * Folders and files whose SQL is not moved onto the dialect yet. Whoever moves one takes it off this
 * list; the second test below fails while a listed one is already clean, so the list only shrinks.
 */
const NOT_YET_MIGRATED: string[] = []

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** `file:line: text` of each line that writes engine text. */
function engineLines(file: string): string[] {
  const lines = readFileSync(file, 'utf8').split('\n')
  const patterns = relative(ROOT, file).startsWith(`domain${sep}`) ? [...DUCKDB_ONLY, DOMAIN_IMPORT] : DUCKDB_ONLY
  return lines.flatMap((line, i) => {
    const code = line.trim()
    if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return []
    return patterns.some((pattern) => pattern.test(line)) ? [`${relative(ROOT, file).split(sep).join('/')}:${i + 1}: ${code}`] : []
  })
}

const all = sources(ROOT).map((file) => ({ path: relative(ROOT, file).split(sep).join('/'), hits: engineLines(file) }))
/** Whether `path` is the listed file or lies in the listed folder. */
const inside = (path: string, entry: string) => path === entry || path.startsWith(`${entry}/`)

describe('engine SQL stays in src-main/warehouse', () => {
  it('finds no DuckDB-only SQL text outside the warehouse folder and the folders not migrated yet', () => {
    const outside = all.filter((f) => !inside(f.path, 'warehouse') && !NOT_YET_MIGRATED.some((entry) => inside(f.path, entry)))
    expect(outside.length).toBeGreaterThan(50)
    expect(outside.flatMap((f) => f.hits)).toEqual([])
  })

  it('still lists only folders and files that have DuckDB text left (take a clean one off the list)', () => {
    const clean = NOT_YET_MIGRATED.filter((entry) => all.filter((f) => inside(f.path, entry)).every((f) => f.hits.length === 0))
    expect(clean).toEqual([])
  })

  it('finds the DuckDB text where the dialect writes it (the patterns are live)', () => {
    const warehouse = all.filter((f) => inside(f.path, 'warehouse/duckdb')).flatMap((f) => f.hits).join('\n')
    for (const word of ['bitstring_agg(', 'epoch_us(', 'list_transform(', 'hash(', 'TABLESAMPLE', 'strftime(', 'date_trunc(', 'stats(', 'read_csv(', 'preserve_insertion_order']) expect(warehouse).toContain(word)
  })
})

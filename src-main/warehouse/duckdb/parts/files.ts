import type { FilesPart } from '../../parts/files'

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`
const compression = (gzip: boolean) => literal(gzip ? 'gzip' : 'none')

/**
 * DuckDB's readers. Lines are read as CSV of one column whose separator (\x1f) and quote never
 * occur, so that a line that is not JSON is a record to reject, not a failed read.
 */
export const files: FilesPart = {
  jsonArrayLines: (file, gzip) =>
    `SELECT CAST(json AS VARCHAR) AS line
      FROM read_json_objects(${literal(file)}, format = 'array', compression = ${literal(gzip ? 'gzip' : 'uncompressed')})`,
  fileLines: (file, r) => `SELECT line
    FROM read_csv(${literal(file)}, columns = {'line': 'VARCHAR'}, header = false, delim = '\\x1f', quote = '', escape = '',
                  auto_detect = false, compression = ${compression(r.gzip)}, max_line_size = ${r.maxLineBytes}, buffer_size = ${r.bufferBytes}, strict_mode = true)`,
  delimitedFile: (file, r, rejects) => {
    const kept = rejects === undefined ? '' : `, store_rejects = true, rejects_table = ${literal(rejects.errors)}, rejects_scan = ${literal(rejects.scans)}`
    return `read_csv(${literal(file)}, header = true, all_varchar = true, delim = ${literal(r.delimiter)}, encoding = ${literal(r.encoding)},
                  compression = ${compression(r.gzip)}, max_line_size = ${r.maxLineBytes}, buffer_size = ${r.bufferBytes}${kept})`
  },
  // a line of too many cells has an error per extra cell, the last one counting them all; one of
  // too few, an error per missing cell, the first one counting them
  firstRejectedLine: (rejects) => `SELECT line, error_type, csv_line, error_message FROM temp.${rejects.errors}
      ORDER BY line, CASE WHEN error_type = 'TOO MANY COLUMNS' THEN -column_idx ELSE column_idx END LIMIT 1`,
  rejectedLine: (row) => {
    const counts = /Expected Number of Columns: (\d+) Found: (\d+)/.exec(String(row.error_message))
    return {
      line: row.line,
      text: String(row.csv_line ?? ''),
      cells: counts ? { expected: counts[1], found: counts[2] } : null,
      encoding: row.error_type === 'INVALID ENCODING',
      message: String(row.error_message).split('\n')[0],
    }
  },
  parquetFile: (file) => `read_parquet(${literal(file)})`,
  describeColumns: (select) => `DESCRIBE ${select}`,
  cellAsText: (column, engineType) => (/\[\]$|^STRUCT|^MAP/.test(engineType) ? `CAST(to_json(${column}) AS VARCHAR)` : `CAST(${column} AS VARCHAR)`),
  tempColumns: (name) =>
    `SELECT column_name, data_type FROM information_schema.columns WHERE table_catalog = 'temp' AND table_name = ${literal(name)} ORDER BY ordinal_position`,
  // SESSION, because a plain SET is global: it would reorder a staging read on another connection
  insertionOrder: (preserve) => [`SET SESSION preserve_insertion_order = ${preserve}`],
  defaultInsertionOrder: () => ['RESET SESSION preserve_insertion_order'],
}

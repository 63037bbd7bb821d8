import { DuckDBListValue, type DuckDBDataChunk } from '@duckdb/node-api'
import type { ScanChunk } from '..'

/**
 * Numeric columns of a DuckDB result as typed arrays, for analyses that finish in JavaScript.
 * A fixed-width vector (INTEGER, DOUBLE) keeps its values in a typed array over DuckDB's own
 * buffer; reading that array costs one call per chunk instead of one per value, which is what
 * makes moving millions of rows out of DuckDB cheap. Columns read here must be NOT NULL (COALESCE
 * in SQL): a NULL's slot in the buffer holds no meaningful value.
 */

function typedItems(chunk: DuckDBDataChunk, column: number): { items: unknown; values: () => number[] } {
  const vector = chunk.getColumnVector(column)
  return {
    items: (vector as unknown as { items?: unknown }).items,
    values: () => Array.from({ length: vector.itemCount }, (_, i) => Number(vector.getItem(i))),
  }
}

/** An INTEGER column of a chunk: the vector's own typed array, else its values one by one. */
export function intColumn(chunk: DuckDBDataChunk, column: number): Int32Array {
  const { items, values } = typedItems(chunk, column)
  return items instanceof Int32Array ? items : Int32Array.from(values())
}

/** A DOUBLE column of a chunk: the vector's own typed array, else its values one by one. */
export function doubleColumn(chunk: DuckDBDataChunk, column: number): Float64Array {
  const { items, values } = typedItems(chunk, column)
  return items instanceof Float64Array ? items : Float64Array.from(values())
}

/** A chunk of a scan (Warehouse.scan), taken out of the result when first read: numeric columns as typed arrays, other values one by one. */
export function scanChunk(read: () => DuckDBDataChunk): ScanChunk {
  let taken: DuckDBDataChunk | null = null
  const chunk = () => (taken ??= read())
  return {
    get rowCount() {
      return chunk().rowCount
    },
    ints: (column) => intColumn(chunk(), column),
    doubles: (column) => doubleColumn(chunk(), column),
    value: (column, row) => {
      const value = chunk().getColumnVector(column).getItem(row)
      return value instanceof DuckDBListValue ? value.items : value
    },
  }
}

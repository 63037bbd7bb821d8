/**
 * Reading files into staging relations (domain/ingest: stage.ts, streamed.ts, tabular.ts): the
 * engine's own file readers, what they report of a file, and the setting a staging read needs.
 * `file` is a path in the project's staging folder (placed there by the import), quoted by the
 * dialect. DuckDB reads the files of every project, a ClickHouse one's included: its loads are
 * staged on DuckDB first, so ClickHouse's dialect refuses this part.
 */

/** How a line-oriented file is read. */
export interface LineReading {
  gzip: boolean
  /** The longest line taken; the reader's buffer is `bufferBytes`. */
  maxLineBytes: number
  bufferBytes: number
}

/** How a CSV or TSV file is read: the cell separator and the text encoding (detected by the domain). */
export interface DelimitedReading extends LineReading {
  delimiter: string
  encoding: 'utf-8' | 'utf-16' | 'latin-1'
}

/** Temp tables that keep the lines a delimited read refused (see `delimitedFile`). */
export interface RejectTables {
  errors: string
  scans: string
}

/** A line the reader refused, from a row of `firstRejectedLine`. */
export interface RejectedLine {
  /** The line's number in the file, as the reader gave it. */
  line: unknown
  /** The line's text. */
  text: string
  /** For a line of the wrong number of cells: the header's count and the line's (as the reader wrote them). */
  cells: { expected: string; found: string } | null
  /** Whether the line is not text of the file's encoding. */
  encoding: boolean
  /** The reader's message, first line. */
  message: string
}

export interface FilesPart {
  /** A query of the records of a file holding one JSON array: column `line`, each record's JSON text. */
  jsonArrayLines(file: string, gzip: boolean): string
  /** A query of a text file's lines in file order, blank ones included, each whole in column `line`. */
  fileLines(file: string, reading: LineReading): string
  /**
   * A FROM item of a CSV or TSV file with a header line, every cell as text. With `rejects`, the
   * lines the reader refuses are kept in those temp tables instead of failing the read.
   */
  delimitedFile(file: string, reading: DelimitedReading, rejects?: RejectTables): string
  /** A query of the first line a read with `rejects` refused (no row when none); `rejectedLine` reads its row. */
  firstRejectedLine(rejects: RejectTables): string
  rejectedLine(row: Record<string, unknown>): RejectedLine
  /** A FROM item of a Parquet file. */
  parquetFile(file: string): string
  /** A query of the columns `select` gives, in order: per row its name, then its engine type. */
  describeColumns(select: string): string
  /** A file's cell `column` (quoted) of engine type `engineType` as text: lists, structs and maps as JSON. */
  cellAsText(column: string, engineType: string): string
  /** A query of the columns of temp table or view `name`, in order: per row its name, then its engine type. */
  tempColumns(name: string): string
  /**
   * The statements that make this connection's statements keep the order rows come in (`preserve`)
   * or not, for this connection only; then those that give it back its default.
   */
  insertionOrder(preserve: boolean): string[]
  defaultInsertionOrder(): string[]
}

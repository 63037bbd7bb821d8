import { loginUserQuery } from './common'

/** Request and response schemas of custom SQL (spec 4.7). */

export const sqlBody = {
  type: 'object',
  required: ['sql'],
  additionalProperties: false,
  properties: {
    sql: {
      type: 'string',
      minLength: 1,
      maxLength: 1_000_000,
      'x-rule': 'one SELECT statement, at most 1,000,000 characters',
      description: 'One SELECT statement. A column id holding `$` is written in double quotes ("$os"), escaped inside the JSON body: "SELECT \\"$os\\" FROM event_vd".',
    },
    format: { type: 'string', enum: ['csv', 'json'], default: 'csv', description: 'csv (default) or json.' },
  },
} as const

export const sqlQuerystring = {
  type: 'object',
  properties: {
    csvUtfEncoding: {
      type: 'integer',
      enum: [0, 1],
      description: 'CSV only. 0: start the CSV with a UTF-8 byte order mark, so that spreadsheet tools (Excel) read non-ASCII text correctly. 1 or omitted: plain UTF-8 without a mark. Ignored for json.',
    },
    ...loginUserQuery,
  },
} as const

/** The format of the cohort member and timeline exports, whose default is JSON lines. */
export const exportFormatField = {
  type: 'string',
  enum: ['json', 'csv'],
  default: 'json',
  description: 'json (default): JSON lines, one object per line. csv: a header line, then one line per row, comma separated, CRLF line ends, fields quoted (quotes doubled) when they hold a comma, a quote or a line break (RFC 4180); null is an empty field, a list its JSON text; with csvUtfEncoding=0 it starts with a UTF-8 byte order mark.',
} as const

export const SQL_RULES = `Rules (spec 4.7):
- Tables: \`event_vd\` (distinct_id, xwho, xwhat, xwhen, ds as yyyyMMdd integer, one column per event property), \`profile_vd\` (distinct_id, xwho, one column per user property), the project's dimension tables, and its cohort and tag tables (\`cohort_<code>\`, \`tag_<code>\`) when they exist. A table may be written plainly (\`event_vd\`) or with the project's database, which is its appKey (\`<appKey>.event_vd\`); DuckDB's own forms for the same database (\`main.event_vd\`, \`warehouse.event_vd\`, \`warehouse.main.event_vd\`) work too. Any other database or schema: 400 naming \`sql\`, saying a table of another project is included. Any other table (internal ones included): 400 naming \`sql\`.
- Column ids holding \`$\` are quoted: \`"$os"\`. Identifiers are case-insensitive. DuckDB's SQL dialect.
- Only one SELECT (WITH, UNION, subqueries, joins, window functions, VALUES, PIVOT in a subquery are fine). Refused with 400 naming \`sql\`: several statements; data changes and definitions (INSERT, UPDATE, DELETE, CREATE, DROP, ALTER); COPY, EXPORT, ATTACH, DETACH, INSTALL, LOAD, PRAGMA, SET, RESET, CALL, CHECKPOINT, VACUUM, USE, EXPLAIN, DESCRIBE, SHOW, SUMMARIZE, BEGIN, COMMIT; files by name (\`FROM 'x.csv'\`); table functions other than range, generate_series, unnest, json_each and json_tree (so no read_csv, read_parquet, read_json, read_text, read_blob, glob, query, query_table, duckdb_*, pragma_*, ...); the functions current_setting, getvariable, nextval, currval, write_log, sleep_ms, pg_sleep and the catalog macros; parameters ($1, ?). The database cannot open files or the network at all, whatever the query.
- A query that DuckDB rejects (syntax, unknown column, bad cast): 400 naming \`sql\` with DuckDB's message.
- Values: TIMESTAMP and TIMESTAMPTZ as \`yyyy-MM-dd HH:mm:ss\`, with \`.SSS\` when the value has milliseconds, TIMESTAMPTZ (xwhen) in the project's time zone; DATE as yyyy-MM-dd; BIGINT and wider integers exact (CSV: the digits; JSON: a number within +-(2^53-1), else a string); lists, structs and maps as JSON (in CSV, the JSON text in one field); NULL as an empty CSV field or JSON null; DOUBLE NaN and infinities as text.
- CSV: a header line of the column names, then one line per row, comma separated, CRLF line ends, fields quoted (quotes doubled) when they hold a comma, a quote or a line break (RFC 4180). JSON keys are the column names; a repeated name gets _1, _2.
- Time limit: \`sql.query.timeLimitMs\` (60000) for queries, \`sql.export.timeLimitMs\` (600000, 10 minutes) for exports, settings of the server. A query stopped by it before anything was sent: 501 with code 50103 (query-engine resources) saying so; an export already streaming is cut short (the body ends without its last chunk). Running out of memory: 501/50103 too.
- Concurrency: at most \`sql.concurrency\` (4) custom SQL queries and exports run at once on the server; past that 501 with code 50104.
- A client that disconnects stops its query at once.`

export const queryResponse = {
  description: 'format csv: text/csv, the header line and the rows. format json: application/json, one array of row objects ([] when there are none).',
  content: {
    'text/csv': { schema: { type: 'string' } },
    'application/json': { schema: { type: 'array', items: { type: 'object', additionalProperties: true } } },
  },
} as const

export const exportResponse = {
  description: 'Streamed. format csv: text/csv, the header line and the rows. format json: application/x-ndjson, one JSON object per row and line, no array (an empty result is an empty body).',
  content: {
    'text/csv': { schema: { type: 'string' } },
    'application/x-ndjson': { schema: { type: 'string' } },
  },
} as const

export const sqlErrorDescriptions = {
  501: 'Not completed: code 50103 when the query reached its time limit or ran out of memory, 50104 when the server already runs its most custom SQL queries at once.',
}

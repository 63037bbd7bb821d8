import { exact } from './common'

/** A project's `warehouse` in a request: create a project on it, or test the connection. */
export const warehouseInput = {
  type: 'object',
  required: ['engine'],
  additionalProperties: false,
  description:
    'Where the project\'s events live (UBA Desk addition). Default: the embedded DuckDB in the data folder. `clickhouse`: a ClickHouse server (18.16 or later) over its HTTP interface; url and database are required, and the server is tried before anything is created (a server that does not answer or refuses the user: 400 naming `warehouse`).',
  properties: {
    engine: { type: 'string', enum: ['duckdb', 'clickhouse'], description: '`duckdb` (embedded, the default) or `clickhouse`.' },
    url: { type: 'string', minLength: 1, maxLength: 200, description: 'The server\'s HTTP interface: http(s)://HOST:PORT, e.g. http://HOST:8123; no path, query or credentials.' },
    database: {
      type: 'string',
      pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$',
      'x-rule': 'a plain name: letters, digits and _, not starting with a digit, 1-64 characters',
      description: 'The project\'s database on the server; created with the project when it does not exist (a database that exists is used as it is, and never dropped by UBA Desk).',
    },
    user: { type: 'string', pattern: '^[\\x21-\\x7e]{1,64}$', 'x-rule': 'printable ASCII characters without spaces, 1-64', description: 'Default: the server\'s `default` user.' },
    password: {
      type: 'string',
      maxLength: 128,
      pattern: '^[\\x20-\\x7e]*$',
      'x-rule': 'printable ASCII characters, at most 128',
      description: 'Sent to the server only (X-ClickHouse-Key header); kept in the data folder\'s metadata like the project tokens, never logged and never answered.',
    },
  },
} as const

/** A project's `warehouse` in an answer: never the password. */
export const warehouseOutput = {
  ...exact(
    {
      type: 'object',
      description: 'Where the project\'s events live (UBA Desk addition): the engine, and for ClickHouse the server, database and user. The password is never answered.',
      properties: {
        engine: { type: 'string', enum: ['duckdb', 'clickhouse'] },
        url: { type: 'string', description: 'ClickHouse only: the server\'s HTTP address.' },
        database: { type: 'string', description: 'ClickHouse only: the project\'s database.' },
        user: { type: 'string', description: 'ClickHouse only, when one was given.' },
        problem: { type: 'string', description: 'ClickHouse only, when the database was found missing on the server (dropped there): what is wrong, naming it. UBA Desk never recreates it; analyses of the project answer 503 saying the same.' },
      },
    },
    ['url', 'database', 'user', 'problem'],
  ),
} as const

/** What "Test connection" answers when the server answered and let the user in. */
export const serverFound = exact({
  type: 'object',
  properties: {
    version: { type: 'string', description: 'The server\'s version(), e.g. 18.16.1.' },
    databaseExists: { type: 'boolean', description: 'Whether the database exists already (used as it is) or will be created with the project.' },
  },
})

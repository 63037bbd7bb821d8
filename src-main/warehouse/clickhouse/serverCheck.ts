import { ClickHouseClient, type ClickHouseConnection } from './client'
import { ClickHouseError, EngineUnavailableError } from './errors'
import type { ServerFound, ServerRefused } from '../router'

/** The longest a check waits for the server's answer (an unroutable host would hang much longer). */
const CHECK_TIMEOUT_MS = 10_000

/**
 * Tests a ClickHouse server as the project would use it: /ping, then one query as the given user
 * (its version and whether the database exists). The database is not named in the request, as it
 * may not exist yet.
 */
export async function checkServer(connection: ClickHouseConnection & { database: string }): Promise<ServerFound | ServerRefused> {
  const client = new ClickHouseClient({ url: connection.url, user: connection.user, password: connection.password })
  try {
    await client.ping()
    const { rows } = await client.query('SELECT version() AS version, (SELECT count() FROM system.databases WHERE name = {database:String}) AS found', {
      params: { database: connection.database },
      timeoutMs: CHECK_TIMEOUT_MS,
    })
    return { ok: true, version: String(rows[0][0]), databaseExists: Number(rows[0][1]) > 0 }
  } catch (err) {
    if (err instanceof EngineUnavailableError) return { ok: false, problem: 'unreachable', message: `no ClickHouse server answers at ${client.url} (${err.reason})` }
    if (err instanceof ClickHouseError && err.kind === 'auth') {
      return { ok: false, problem: 'auth', message: `the ClickHouse server at ${client.url} refused the user ${connection.user ?? 'default'}: wrong user or password` }
    }
    if (err instanceof ClickHouseError) return { ok: false, problem: 'error', message: `the ClickHouse server at ${client.url} answered an error: ${err.message.slice(0, 300)}` }
    throw err
  }
}

import { join } from 'node:path'
import pino, { type Logger } from 'pino'
import { privateDir } from './store/private'

/**
 * What the log never shows: the API tokens, and a ClickHouse password wherever it could appear (a
 * request body is not logged today; these paths keep it out should it ever be).
 */
export const REDACTED = ['req.headers.token', 'req.headers.xtoken', 'req.headers.appkey', 'req.body.warehouse.password', 'body.warehouse.password', 'warehouse.password', 'connection.password']

/** The server's log file in the data folder (logs/server.log), secrets redacted; shared by both doors. */
export function openServerLog(dataDir: string): { logger: Logger; file: string } {
  const logDir = join(dataDir, 'logs')
  privateDir(logDir)
  const file = join(logDir, 'server.log')
  const logger = pino(
    { level: process.env.UBA_DESK_LOG_LEVEL ?? 'info', redact: REDACTED },
    pino.destination({ dest: file, sync: false, mkdir: true, mode: 0o600 }),
  )
  return { logger, file }
}

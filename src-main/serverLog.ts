import { join } from 'node:path'
import pino, { type Logger } from 'pino'
import { privateDir } from './store/private'

/** The server's log file in the data folder (logs/server.log), tokens redacted; shared by both doors. */
export function openServerLog(dataDir: string): { logger: Logger; file: string } {
  const logDir = join(dataDir, 'logs')
  privateDir(logDir)
  const file = join(logDir, 'server.log')
  const logger = pino(
    { level: process.env.UBA_DESK_LOG_LEVEL ?? 'info', redact: ['req.headers.token', 'req.headers.xtoken', 'req.headers.appkey'] },
    pino.destination({ dest: file, sync: false, mkdir: true, mode: 0o600 }),
  )
  return { logger, file }
}

import { existsSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { dataLayout } from './paths'

/**
 * `server.json` in a data folder names the server that serves it ({url, pid}). A crash leaves the
 * file behind, and the system may give its pid to another process later; so a live pid alone does
 * not make a server: its URL's /health must answer and name this same data folder.
 */

/** The port both doors (the desktop app and `serve`) listen on unless told otherwise. */
export const DEFAULT_PORT = 5177

export interface ServerInfo {
  url: string
  pid: number
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** The folder itself, whatever path leads to it (symbolic links, relative parts). */
function canonical(dir: string): string {
  try {
    return realpathSync(dir)
  } catch {
    return resolve(dir)
  }
}

/** What server.json says, or null when there is none (or it is not JSON with a url and a pid). */
export function readServerFile(dataDir: string): ServerInfo | null {
  const file = dataLayout(dataDir).serverFile
  if (!existsSync(file)) return null
  try {
    const info = JSON.parse(readFileSync(file, 'utf8')) as Partial<ServerInfo>
    return typeof info.url === 'string' && Number.isInteger(info.pid) ? { url: info.url, pid: info.pid as number } : null
  } catch {
    return null
  }
}

/**
 * The server that serves `dataDir` now, or null: server.json names a live pid other than ours,
 * and its URL's /health answers naming this folder. A health answer without a folder (a server of
 * an older version) counts as serving it: better refused than two servers on one folder.
 */
export async function servingServer(dataDir: string): Promise<ServerInfo | null> {
  const info = readServerFile(dataDir)
  if (!info || info.pid === process.pid || !isAlive(info.pid)) return null
  try {
    const res = await fetch(new URL('/health', info.url), { signal: AbortSignal.timeout(3000) })
    if (res.status !== 200) return null
    const health = (await res.json()) as { status?: string; dataDir?: string }
    if (health.status !== 'ok') return null
    return health.dataDir === undefined || canonical(health.dataDir) === canonical(dataDir) ? info : null
  } catch {
    return null
  }
}

/** The message that names the server already serving a data folder. */
export function servedMessage(other: ServerInfo): string {
  return `another UBA Desk server (pid ${other.pid}) already serves this data folder at ${other.url}`
}

/**
 * Refuses to start over a data folder that a live server already serves (its DuckDB files are
 * locked); a server.json left by a crash, whose pid may now be another program's, is removed.
 */
export async function claimDataDir(dataDir: string): Promise<void> {
  const other = await servingServer(dataDir)
  if (other) throw new Error(servedMessage(other))
  rmSync(dataLayout(dataDir).serverFile, { force: true })
}

/** Announces a started server to local tools: `{url, pid[, collectorUrl]}`, readable by this user only. */
export function writeServerFile(dataDir: string, info: ServerInfo & { collectorUrl?: string }): void {
  const { url, pid, collectorUrl } = info
  writeFileSync(dataLayout(dataDir).serverFile, JSON.stringify({ url, pid, ...(collectorUrl ? { collectorUrl } : {}) }, null, 2) + '\n', { mode: 0o600 })
}

/** Withdraws the announcement at a clean stop. */
export function removeServerFile(dataDir: string): void {
  rmSync(dataLayout(dataDir).serverFile, { force: true })
}

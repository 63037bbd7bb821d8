import type { FastifyBaseLogger } from 'fastify'
import { startApp, type RunningApp } from '../app'
import type { DeskSession } from '../preload/bridge'
import { claimDataDir, DEFAULT_PORT, removeServerFile, writeServerFile } from '../serverFile'
import { privateDir } from '../store/private'

/**
 * The desktop app's server, without Electron: the main process hands in the data folder (Electron's
 * `userData`) and gets back a running server announced in `server.json` exactly as `serve` does,
 * so that local tools and the CLI find it. Plain Node, so the tests run it as it runs in the app.
 */

export interface DesktopDoorOptions {
  dataDir: string
  uiDir: string | null
  /** The port to try first (default: the same as `serve`); a free one is taken when it is in use. */
  port?: number
  /** Origins besides the server's own that may call the API (electron-vite's dev server). */
  extraOrigins?: string[]
  logger?: FastifyBaseLogger
  /** The pid written to server.json: the main process's own. */
  pid?: number
}

export interface DesktopDoor {
  running: RunningApp
  /** What the preload hands to the renderer: the API's address and the first project's credentials. */
  session: DeskSession
  /** Closes the server (both databases), then withdraws server.json. */
  close(): Promise<void>
}

/**
 * Claims the data folder (refused, naming the running server, when another server of either kind
 * serves it), starts the server on the stable port or a free one, and writes server.json.
 */
export async function openDesktopDoor(options: DesktopDoorOptions): Promise<DesktopDoor> {
  privateDir(options.dataDir)
  await claimDataDir(options.dataDir)
  const running = await startApp({
    dataDir: options.dataDir,
    host: '127.0.0.1',
    port: options.port ?? DEFAULT_PORT,
    anyPortIfTaken: true,
    uiDir: options.uiDir,
    extraOrigins: options.extraOrigins,
    logger: options.logger,
  })
  writeServerFile(options.dataDir, { url: running.url, pid: options.pid ?? process.pid, collectorUrl: running.collectorUrl })
  const creds = running.credentials()
  const first = creds.projects[0]
  let closing: Promise<void> | undefined
  return {
    running,
    session: { apiBase: running.url, xtoken: creds.xtoken, appKey: first?.appKey ?? '', token: first?.token ?? '' },
    close: () => {
      closing ??= running.close().finally(() => removeServerFile(options.dataDir))
      return closing
    },
  }
}

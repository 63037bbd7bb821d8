import { homedir } from 'node:os'
import { join } from 'node:path'

export const APP_NAME = 'UBA Desk'

/**
 * The per-user application data folder, the same one Electron's `userData` names for this app,
 * so that the desktop app and the headless server open the same data. UBA_DESK_DATA_DIR overrides.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.UBA_DESK_DATA_DIR) return env.UBA_DESK_DATA_DIR
  const home = homedir()
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), APP_NAME)
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', APP_NAME)
  return join(env.XDG_CONFIG_HOME ?? join(home, '.config'), APP_NAME)
}

/** Where things live inside a data folder. */
export function dataLayout(dataDir: string) {
  return {
    meta: join(dataDir, 'meta.sqlite'),
    projects: join(dataDir, 'projects'),
    serverFile: join(dataDir, 'server.json'),
  }
}

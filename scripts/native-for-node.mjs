// better-sqlite3 is a native module built for one ABI at a time. After the desktop app has rebuilt
// it for Electron, plain Node (tests, the headless server) needs it rebuilt back. Cheap when it
// already loads.
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
try {
  const Database = require('better-sqlite3')
  new Database(':memory:').close()
} catch (err) {
  if (!/NODE_MODULE_VERSION|was compiled against a different Node/.test(String(err))) throw err
  console.log('UBA Desk: rebuilding better-sqlite3 for Node...')
  const result = spawnSync('npm', ['rebuild', 'better-sqlite3'], { stdio: 'inherit', shell: process.platform === 'win32' })
  process.exit(result.status ?? 1)
}

// `npm start`: the desktop app where Electron can run; otherwise, saying so in one line, the same
// server headless with the web UI. Both open the same data folder. Extra arguments go to `serve`
// (e.g. `npm start -- --port 0 --data-dir /tmp/demo`).
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const run = (cmd, args, opts = {}) => spawnSync(cmd, args, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32', ...opts })

function newest(dir) {
  let latest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs)
  }
  return latest
}

/** Builds main, preload and renderer when the build is missing or older than the sources. */
function ensureBuilt() {
  const marker = join(root, 'out', 'renderer', 'index.html')
  const built = existsSync(marker) ? statSync(marker).mtimeMs : 0
  const sources = Math.max(newest(join(root, 'src-main')), newest(join(root, 'src-renderer')))
  if (built >= sources) return
  console.log('UBA Desk: building the app (electron-vite build)...')
  const result = run('npx', ['electron-vite', 'build'], { stdio: ['ignore', 'ignore', 'inherit'] })
  if (result.status !== 0) process.exit(result.status ?? 1)
}

/** Why Electron cannot run here, or null when it can. Never throws. */
function electronUnavailable() {
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return 'there is no display'
  // requiring the package fetches Electron's binary on first use; that fails offline
  const probe = spawnSync(process.execPath, ['-e', "process.stdout.write(require('electron'))"], {
    cwd: root,
    encoding: 'utf8',
    timeout: 300_000,
  })
  if (probe.status !== 0 || !probe.stdout || !existsSync(probe.stdout)) return "Electron's binary could not be obtained"
  return null
}

ensureBuilt()
const reason = electronUnavailable()
if (reason === null) {
  // native modules must match Electron's ABI; `npm test` switches them back for Node
  const rebuilt = run('npx', ['electron-builder', 'install-app-deps'])
  if (rebuilt.status !== 0) process.exit(rebuilt.status ?? 1)
  const electron = spawnSync(process.execPath, ['-e', "process.stdout.write(require('electron'))"], { cwd: root, encoding: 'utf8' }).stdout
  process.exit(run(electron, ['.']).status ?? 0)
}

console.log(`UBA Desk: the desktop window cannot open here (${reason}); starting the headless server with the web UI instead.`)
const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { 'data-dir': { type: 'string' }, port: { type: 'string' }, host: { type: 'string', default: '127.0.0.1' } },
})
run(process.execPath, [join(root, 'scripts', 'native-for-node.mjs')])
const { register } = await import('tsx/esm/api')
register()
const { serve, DEFAULT_PORT } = await import('../src-main/cli.ts')
const { defaultDataDir } = await import('../src-main/paths.ts')
const app = await serve({
  dataDir: resolve(values['data-dir'] ?? defaultDataDir()),
  port: values.port === undefined ? DEFAULT_PORT : Number(values.port),
  host: values.host,
  allowOrigins: [],
}).catch((err) => {
  console.error(`uba-desk: ${err.code === 'EADDRINUSE' ? `port ${values.port ?? DEFAULT_PORT} is in use; try npm start -- --port 0` : err.message}`)
  process.exit(1)
})
const creds = app.credentials()
console.log(`web UI: ${app.url}/#/connect?xtoken=${creds.xtoken}`)
console.log(`API reference: ${app.url}/docs`)
console.log(`platform xtoken: ${creds.xtoken}`)
for (const p of creds.projects) console.log(`project ${p.name}: appKey ${p.appKey}  token ${p.token}`)
console.log('Ctrl+C stops the server.')

import { join } from 'node:path'
import { app, BrowserWindow, dialog, ipcMain, session as electronSession, shell, type WebFrameMain } from 'electron'
import { chooseImportFile, saveExport, type DialogSeam } from './desktop/dialogs'
import { openDesktopDoor, type DesktopDoor } from './desktop/door'
import { CHANNELS, type DeskSession } from './preload/bridge'
import { openServerLog } from './serverLog'

/**
 * The desktop door: starts the server in-process on loopback (desktop/door.ts: the stable port,
 * server.json, refusing a folder another server holds) and shows the renderer in a locked-down
 * window. Only Electron's side lives here; the renderer talks to the same HTTP API as any other tool.
 */

/** Set by electron-vite dev: the renderer's dev server, which hot-reloads. */
const devRendererUrl = process.env.ELECTRON_RENDERER_URL

let door: DesktopDoor | undefined
let mainWindow: BrowserWindow | undefined
let deskSession: DeskSession | undefined
/** The only origin the window may show: the in-process server's, or the dev server's. */
let appOrigin = ''

function originOf(url: string | undefined): string | null {
  if (!url) return null
  try {
    return new URL(url).origin
  } catch {
    return null
  }
}

function isAppFrame(frame: WebFrameMain | null): boolean {
  return frame !== null && originOf(frame.url) === appOrigin
}

/** The one way out to the user's browser: http(s) URLs only, nothing else is opened. */
async function openExternal(url: string): Promise<void> {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new Error('not a URL')
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('only http and https links can be opened')
  await shell.openExternal(parsed.href)
}

function createWindow(url: string): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 800,
    minWidth: 1024,
    minHeight: 700,
    show: false,
    title: 'UBA Desk',
    webPreferences: {
      preload: join(import.meta.dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  })
  win.once('ready-to-show', () => win.show())
  win.webContents.on('will-navigate', (event) => {
    if (originOf(event.url) !== appOrigin) event.preventDefault()
  })
  // no second window ever; links meant for a new tab go to the browser (openExternal refuses non-http)
  win.webContents.setWindowOpenHandler(({ url }) => {
    openExternal(url).catch(() => undefined)
    return { action: 'deny' }
  })
  win.on('closed', () => {
    mainWindow = undefined
  })
  void win.loadURL(url)
  return win
}

/** Electron's dialogs, attached to the window (modal) while there is one. */
const dialogs: DialogSeam = {
  showOpenDialog: (options) => (mainWindow ? dialog.showOpenDialog(mainWindow, options) : dialog.showOpenDialog(options)),
  showSaveDialog: (options) => (mainWindow ? dialog.showSaveDialog(mainWindow, options) : dialog.showSaveDialog(options)),
}

function installIpc(): void {
  ipcMain.on(CHANNELS.session, (event) => {
    event.returnValue = isAppFrame(event.senderFrame) ? (deskSession ?? null) : null
  })
  ipcMain.handle(CHANNELS.openExternal, async (event, url: unknown) => {
    if (!isAppFrame(event.senderFrame)) throw new Error('refused')
    if (typeof url !== 'string') throw new Error('not a URL')
    await openExternal(url)
  })
  ipcMain.handle(CHANNELS.chooseImportFile, async (event) => {
    if (!isAppFrame(event.senderFrame) || !door) throw new Error('refused')
    return chooseImportFile(dialogs, door.running.ctx)
  })
  ipcMain.handle(CHANNELS.saveFile, async (event, name: unknown, data: unknown) => {
    if (!isAppFrame(event.senderFrame)) throw new Error('refused')
    return saveExport(dialogs, name, data, app.getPath('downloads'))
  })
}

async function start(): Promise<void> {
  const dataDir = app.getPath('userData')
  door = await openDesktopDoor({
    dataDir,
    uiDir: join(import.meta.dirname, '../renderer'),
    extraOrigins: devRendererUrl ? [new URL(devRendererUrl).origin] : [],
    logger: openServerLog(dataDir).logger,
  })
  deskSession = door.session
  appOrigin = new URL(devRendererUrl ?? door.running.url).origin

  // the renderer needs nothing but writing to the clipboard (Copy buttons)
  electronSession.defaultSession.setPermissionRequestHandler((_webContents, permission, callback) =>
    callback(permission === 'clipboard-sanitized-write'),
  )
  installIpc()
  mainWindow = createWindow(devRendererUrl ?? `${door.running.url}/`)
}

let quitState: 'running' | 'closing' | 'closed' = 'running'

// Let running requests finish and close both databases before the process ends.
app.on('before-quit', (event) => {
  if (quitState === 'closed' || !door) return
  event.preventDefault()
  if (quitState === 'closing') return
  quitState = 'closing'
  door
    .close()
    .catch((err: unknown) => dialog.showErrorBox('UBA Desk did not shut down cleanly', String(err)))
    .finally(() => {
      quitState = 'closed'
      app.quit()
    })
})

app.on('window-all-closed', () => app.quit())

// One instance per user: a second one would find the data folder's databases locked.
if (!app.requestSingleInstanceLock()) {
  app.quit()
} else {
  app.on('second-instance', () => {
    if (!mainWindow) return
    if (mainWindow.isMinimized()) mainWindow.restore()
    mainWindow.focus()
  })
  app.whenReady().then(start).catch((err: unknown) => {
    dialog.showErrorBox('UBA Desk could not start', err instanceof Error ? err.message : String(err))
    app.exit(1)
  })
}

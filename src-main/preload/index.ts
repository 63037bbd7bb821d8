import { contextBridge, ipcRenderer } from 'electron'
import { CHANNELS, type DeskSession, type UbaDeskBridge } from './bridge'

export type { UbaDeskBridge } from './bridge'

// Synchronous once at start-up, so that the renderer reads plain values; the main process answers
// only frames of the app's own origin, and null to anything else.
const session = ipcRenderer.sendSync(CHANNELS.session) as DeskSession | null

if (session) {
  const api: UbaDeskBridge = {
    apiBase: session.apiBase,
    xtoken: session.xtoken,
    appKey: session.appKey,
    token: session.token,
    // only a string crosses; the main process checks it is an http(s) URL
    openExternal: (url: string) => ipcRenderer.invoke(CHANNELS.openExternal, String(url)) as Promise<void>,
    // no path crosses this way: the main process asks the user and answers what they chose
    chooseImportFile: () => ipcRenderer.invoke(CHANNELS.chooseImportFile) as ReturnType<UbaDeskBridge['chooseImportFile']>,
    // a name and bytes only; where they go is the user's answer to the save dialog
    saveFile: (name: string, data: Uint8Array) => ipcRenderer.invoke(CHANNELS.saveFile, String(name), data) as Promise<boolean>,
  }
  contextBridge.exposeInMainWorld('ubaDesk', api)
}

/**
 * The contract between the main process, the preload and the renderer. It holds no Electron
 * import, so the renderer can take its types without pulling Node's and Electron's into its own.
 */

/** Where the in-process API listens and the credentials to call it (first project). */
export interface DeskSession {
  /** e.g. http://127.0.0.1:41234, no trailing slash */
  readonly apiBase: string
  readonly xtoken: string
  readonly appKey: string
  readonly token: string
}

/** A local file the user chose in the native open dialog; the server may now import it by path. */
export interface ChosenLocalFile {
  readonly path: string
  /** The file's own name, for the screen. */
  readonly name: string
  readonly size: number
}

/** The one object the preload exposes to the renderer, as `window.ubaDesk`. */
export interface UbaDeskBridge extends DeskSession {
  /** Opens an http(s) link in the user's browser; the main process refuses anything else. */
  openExternal(url: string): Promise<void>
  /** The native open dialog for a file to import; null when the user cancels. */
  chooseImportFile(): Promise<ChosenLocalFile | null>
  /** The native save dialog for an export, then writes `data` where the user said; false when cancelled. */
  saveFile(name: string, data: Uint8Array): Promise<boolean>
}

export const CHANNELS = {
  session: 'uba-desk:session',
  openExternal: 'uba-desk:open-external',
  chooseImportFile: 'uba-desk:choose-import-file',
  saveFile: 'uba-desk:save-file',
} as const

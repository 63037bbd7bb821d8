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

/** The one object the preload exposes to the renderer, as `window.ubaDesk`. */
export interface UbaDeskBridge extends DeskSession {
  /** Opens an http(s) link in the user's browser; the main process refuses anything else. */
  openExternal(url: string): Promise<void>
}

export const CHANNELS = {
  session: 'uba-desk:session',
  openExternal: 'uba-desk:open-external',
} as const

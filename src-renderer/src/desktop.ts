import type { ChosenLocalFile } from '../../src-main/preload/bridge'

/**
 * The few things that differ between the desktop app and a plain browser tab.
 */

/** Opens a link outside the app: the system browser on the desktop, a new tab on the web. */
export async function openLink(url: string): Promise<void> {
  if (window.ubaDesk) {
    await window.ubaDesk.openExternal(url)
    return
  }
  window.open(url, '_blank', 'noopener,noreferrer')
}

/** Copies text; resolves false when neither the Clipboard API nor the legacy copy command works. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text)
    return true
  } catch {
    // no Clipboard API (insecure context, permission refused): fall back to a hidden textarea
  }
  const area = document.createElement('textarea')
  area.value = text
  area.setAttribute('readonly', '')
  area.style.position = 'fixed'
  area.style.opacity = '0'
  document.body.appendChild(area)
  area.select()
  try {
    return document.execCommand('copy')
  } catch {
    return false
  } finally {
    area.remove()
  }
}

/**
 * Saves a file the app produced (an export): the desktop app's native save dialog, or a browser's
 * downloads. The name is reduced to a plain file name. Resolves false when the user cancelled.
 */
export async function saveFile(data: Blob, name: string): Promise<boolean> {
  const safeName = name.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '_').replace(/^\.+/, '') || 'export'
  if (window.ubaDesk) return window.ubaDesk.saveFile(safeName, new Uint8Array(await data.arrayBuffer()))
  const url = URL.createObjectURL(data)
  const link = document.createElement('a')
  link.href = url
  link.download = safeName
  link.rel = 'noopener'
  document.body.appendChild(link)
  link.click()
  link.remove()
  // the download has taken its copy once the click has been handled
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
  return true
}

/** The desktop app reads files to import where they are (native open dialog); a browser uploads them. */
export const readsLocalFiles = (): boolean => window.ubaDesk !== undefined

/** The native open dialog (desktop app only): the chosen file's path, name and size, or null. */
export async function chooseLocalFile(): Promise<ChosenLocalFile | null> {
  return window.ubaDesk ? window.ubaDesk.chooseImportFile() : null
}

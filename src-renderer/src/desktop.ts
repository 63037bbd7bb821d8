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
 * Saves a file the app produced (an export) through the download path: the desktop app asks where
 * to save it, a browser puts it in its downloads. The name is reduced to a plain file name.
 */
export function saveFile(data: Blob, name: string): void {
  const safeName = name.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '_').replace(/^\.+/, '') || 'export'
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
}

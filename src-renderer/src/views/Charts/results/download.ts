/** Saves a file from the page: a download in a browser, the save dialog in the desktop app. */
function save(filename: string, href: string): void {
  const link = document.createElement('a')
  link.href = href
  link.download = filename
  link.rel = 'noopener'
  document.body.appendChild(link)
  link.click()
  link.remove()
}

export function downloadText(filename: string, text: string, type: string): void {
  downloadBlob(filename, new Blob([text], { type }))
}

export function downloadDataUrl(filename: string, dataUrl: string): void {
  save(filename, dataUrl)
}

/** A file name from a title: letters, digits and dashes. */
export function fileName(title: string, extension: string): string {
  const base = title
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/\s+/g, '-')
    .slice(0, 80)
  return `${base || 'chart'}.${extension}`
}

export function downloadBlob(filename: string, blob: Blob): void {
  const url = URL.createObjectURL(blob)
  save(filename, url)
  // the download reads the blob right away; the URL is let go a little later
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

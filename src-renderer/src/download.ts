import { saveFile } from './desktop'

/** Saves a file from the page: a download in a browser, the native save dialog in the desktop app. */
export function downloadText(filename: string, text: string, type: string): void {
  void saveFile(new Blob([text], { type }), filename)
}

/** A base64 data URL (the chart's PNG) as a file. */
export function downloadDataUrl(filename: string, dataUrl: string): void {
  const [head, body = ''] = dataUrl.split(',', 2)
  const bytes = Uint8Array.from(atob(body), (c) => c.charCodeAt(0))
  void saveFile(new Blob([bytes], { type: /^data:([^;,]+)/.exec(head)?.[1] ?? 'application/octet-stream' }), filename)
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

/** A file made in the page (a cell's users as CSV): a download, or the desktop app's save dialog. */
export function downloadBlob(filename: string, blob: Blob): void {
  void saveFile(blob, filename)
}

import type { SequenceExport } from '../../stores/people'

const size = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 })
const numbers = new Intl.NumberFormat()

/** 1536 → "1.5 KB": the size of a download so far. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${size.format(bytes / 1024)} KB`
  if (bytes < 1024 ** 3) return `${size.format(bytes / 1024 / 1024)} MB`
  return `${size.format(bytes / 1024 ** 3)} GB`
}

/** What a timeline export has done so far, in a few words ('' when there is nothing to say). */
export function sequenceExportStatus(download: SequenceExport | null): string {
  if (!download) return ''
  const { bytes } = download.progress
  // a CSV's first line is its header
  const lines = Math.max(0, download.progress.lines - (download.format === 'csv' ? 1 : 0))
  const events = `${numbers.format(lines)} ${lines === 1 ? 'event' : 'events'}`
  if (download.state === 'running') return `Exporting… ${events}, ${formatBytes(bytes)}`
  if (download.state === 'done') return `Exported ${events}`
  if (download.state === 'cancelled') return 'Export stopped'
  return ''
}

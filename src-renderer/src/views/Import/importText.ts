import type { ImportJob, JobState } from '../../api/importJobs'
import { numbers } from '../../format'

/** How the Import view writes rates, job states and preview cells (sizes and times: format.ts). */

export { bytes, duration, numbers, when } from '../../format'

/** Rows per second, rounded the way a reader takes it in at a glance. */
export function rate(rows: number, ms: number): string {
  if (ms <= 0 || rows <= 0) return '—'
  const perSecond = (rows * 1000) / ms
  return `${numbers.format(perSecond >= 100 ? Math.round(perSecond) : Number(perSecond.toFixed(1)))} rows/s`
}

export const STATE_LABELS: Record<JobState, { text: string; tone: 'neutral' | 'on' | 'pending' | 'bad' | 'accent' }> = {
  queued: { text: 'Queued', tone: 'neutral' },
  running: { text: 'Running', tone: 'accent' },
  succeeded: { text: 'Done', tone: 'on' },
  failed: { text: 'Failed', tone: 'bad' },
  cancelled: { text: 'Cancelled', tone: 'pending' },
}

export const KIND_LABELS: Record<string, string> = { events: 'Events', profiles: 'User profiles', sample: 'Sample data', records: 'SDK records' }

export const FORMAT_LABELS: Record<string, string> = { csv: 'CSV', tsv: 'TSV', json: 'JSON', parquet: 'Parquet', excel: 'Excel' }

/** Milliseconds a job ran (or has been running). */
export function elapsed(job: ImportJob, now = Date.now()): number {
  if (!job.startTime) return 0
  return (job.endTime ?? now) - job.startTime
}

/** A stored value as a preview cell shows it. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (Array.isArray(value)) return `[${value.map((v) => String(v)).join(', ')}]`
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

/** The property id a column header becomes: lower case, other characters as _ (the server's rule, shown before it applies it). */
export function propertyIdForColumn(header: string): string {
  const text = header.trim().toLowerCase()
  const lead = text.startsWith('$') ? '$' : ''
  let body = text.slice(lead.length).replace(/[^a-z0-9_]+/g, '_').replace(/_+/g, '_').replace(/^_|_$/g, '')
  if (body === '') body = 'column'
  if (/^[0-9]/.test(body)) body = `_${body}`
  return (lead + body).slice(0, 125)
}

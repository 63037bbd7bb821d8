import type { Cohort } from '../../api/cohorts'

/** How a cohort's state and kind are written, the same in the list and on its page. */

export function statusOf(c: Cohort): { tone: 'pending' | 'on' | 'bad'; label: string } {
  if (c.status === 'calculating') return { tone: 'pending', label: 'Calculating' }
  if (c.status === 'failed') return { tone: 'bad', label: 'Failed' }
  return { tone: 'on', label: 'Ready' }
}

export function kindOf(c: Cohort): string {
  return `${c.dynamic === 1 ? 'Dynamic' : 'Static'} · ${c.source === 'file' ? 'file' : 'rules'}`
}

/** yyyy-MM-dd HH:mm, in the project's time zone as the server writes it. */
export function stamp(time: string | null): string {
  return time ? time.slice(0, 16) : '—'
}

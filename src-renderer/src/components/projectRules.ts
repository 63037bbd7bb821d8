import type { SelectOption } from './charts/search'

/** The server's rule for a project name (POST /uba/manage/enterprise/projects, `name`). */
export const PROJECT_NAME = /^[A-Za-z0-9]{1,50}$/

/** Why a name would be refused, in the words of the server's own rule; '' when it is acceptable. */
export function nameProblem(name: string): string {
  if (name === '') return 'A name is required.'
  if (PROJECT_NAME.test(name)) return ''
  if (name.length > 50) return `Only English letters and digits, 1-50 characters (this one has ${name.length}).`
  return 'Only English letters and digits, 1-50 characters: no spaces, accents or symbols.'
}

/** The zone this computer is set to, the default for a new project (the server's default too). */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'
}

/** The zone's offset from UTC right now, e.g. "GMT+9" (it changes with daylight saving time). */
export function zoneOffset(zone: string, at = new Date()): string {
  try {
    const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'shortOffset' }).formatToParts(at)
    return parts.find((p) => p.type === 'timeZoneName')?.value ?? ''
  } catch {
    return ''
  }
}

let zones: SelectOption[] | null = null

/** Every IANA zone this runtime knows, with its current offset (built once: some 400 formatters). */
export function timeZoneOptions(): SelectOption[] {
  if (!zones) {
    const ids = new Set(Intl.supportedValuesOf('timeZone'))
    // the runtime may name this computer's zone by an alias that the canonical list leaves out
    ids.add(browserTimeZone())
    ids.add('UTC')
    const now = new Date()
    zones = [...ids].sort().map((id) => ({ value: id, label: id, hint: zoneOffset(id, now) }))
  }
  return zones
}

import type { RequestBody } from '../../../../src-shared/contract'
import { badParam } from '../../errors'
import type { SampleWindow } from './generate'

/** What a caller may ask for (every field optional): the body of POST /uba/api/import/sample, as its route schema describes it. */
export type SampleRequest = NonNullable<RequestBody<'/uba/api/import/sample'>>

export type SampleOptions = Required<SampleRequest>

export const SAMPLE_LIMITS = {
  users: { min: 1, max: 5_000_000, default: 20_000 },
  days: { min: 1, max: 730, default: 90 },
  seed: { min: 0, max: 2_147_483_647, default: 1 },
} as const

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DAY_MS = 86_400_000

/** Today's date in a time zone, as milliseconds of that date's UTC midnight. */
function todayIn(timeZone: string, now: Date): number {
  const [y, m, d] = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now).split('-').map(Number)
  return Date.UTC(y, m - 1, d)
}

function iso(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

function whole(value: unknown, field: keyof typeof SAMPLE_LIMITS): number {
  const { min, max, default: fallback } = SAMPLE_LIMITS[field]
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw badParam(field, `${field} must be a whole number from ${min} to ${max}`)
  }
  return value
}

/** Checks a request and fills in the defaults; `now` fixes "yesterday" (tests pass it). */
export function sampleOptions(request: SampleRequest, timeZone: string, now = new Date()): SampleOptions {
  const users = whole(request.users, 'users')
  const days = whole(request.days, 'days')
  const seed = whole(request.seed, 'seed')
  const yesterday = todayIn(timeZone, now) - DAY_MS
  if (request.endDate === undefined) return { users, days, seed, endDate: iso(yesterday) }
  const m = DATE.exec(request.endDate)
  const end = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN
  if (!m || iso(end) !== request.endDate) throw badParam('endDate', 'endDate must be a date written yyyy-MM-dd')
  if (end > yesterday) throw badParam('endDate', `endDate must be yesterday (${iso(yesterday)} in the project's time zone) or earlier: the sample has no events in the future`)
  if (end - (days - 1) * DAY_MS < Date.UTC(2000, 0, 1)) throw badParam('endDate', 'the sample must start on 2000-01-01 or later')
  return { users, days, seed, endDate: request.endDate }
}

/** The window the generator works on: its first day and that day's weekday. */
export function sampleWindow(options: SampleOptions): SampleWindow {
  const [y, m, d] = options.endDate.split('-').map(Number)
  const start = Date.UTC(y, m - 1, d) - (options.days - 1) * DAY_MS
  // getUTCDay: 0 Sunday ... 6 Saturday; the generator counts from Monday
  const startWeekday = (new Date(start).getUTCDay() + 6) % 7
  return { users: options.users, days: options.days, seed: options.seed, startDate: iso(start), startWeekday }
}

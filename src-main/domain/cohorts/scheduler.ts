import { currentTime } from '../time/clock'
import { localStamp } from '../time/stamp'
import type { DomainContext } from '../context'
import { resumeTags } from '../userSets/tagCompute'
import { resumeCohorts, startComputation } from '../userSets/cohortCompute'

/**
 * The daily recompute of dynamic cohorts (spec 2.6: "recomputed once per day in the early
 * morning"): at RECOMPUTE_HOUR o'clock in each project's time zone, every dynamic cohort whose
 * last computation started before that moment is computed again. A check runs at start-up (so a
 * recompute missed while the app was closed happens then) and every minute while it runs. "Now"
 * is the controllable clock of time/clock.ts.
 */

export const RECOMPUTE_HOUR = 3
const CHECK_EVERY_MS = 60_000

/** Wall-clock "yyyy-MM-dd HH:mm:ss" of a zone, read as if it were UTC. */
function wallAsUtc(ms: number, timeZone: string): number {
  return Date.parse(localStamp(ms, timeZone).replace(' ', 'T') + 'Z')
}

/** The epoch time of a local day and hour in a time zone (the later one if the hour repeats). */
export function zonedTime(day: string, hour: number, timeZone: string): number {
  const wall = Date.parse(`${day}T${String(hour).padStart(2, '0')}:00:00Z`)
  let guess = wall - (wallAsUtc(wall, timeZone) - wall)
  // a second pass settles offsets that change between the first guess and the answer
  guess = wall - (wallAsUtc(guess, timeZone) - guess)
  return guess
}

/** The latest scheduled moment at or before `now`: today's RECOMPUTE_HOUR, else yesterday's. */
export function lastDueTime(now: number, timeZone: string): number {
  const today = localStamp(now, timeZone).slice(0, 10)
  const due = zonedTime(today, RECOMPUTE_HOUR, timeZone)
  if (due <= now) return due
  const yesterday = new Date(Date.parse(`${today}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10)
  return zonedTime(yesterday, RECOMPUTE_HOUR, timeZone)
}

/**
 * Starts the recompute of every dynamic cohort that is due at `now` (not already calculating) and
 * returns their ids. The timer calls it; tests call it directly with a chosen time.
 */
export function runDueRecomputes(ctx: DomainContext, now: number = currentTime()): number[] {
  const rows = ctx.meta
    .prepare(
      `SELECT c.id, c.attempt_time, p.time_zone FROM cohorts c JOIN projects p ON p.app_key = c.app_key
       WHERE c.dynamic = 1 AND c.status <> 'calculating' AND p.status = 1 ORDER BY c.id`,
    )
    .all() as { id: number; attempt_time: number | null; time_zone: string }[]
  const started: number[] = []
  for (const row of rows) {
    if ((row.attempt_time ?? 0) >= lastDueTime(now, row.time_zone)) continue
    startComputation(ctx, row.id, now)
    started.push(row.id)
  }
  return started
}

/**
 * At start-up: resumes interrupted cohort and tag computations, catches up missed recomputes, then
 * checks every minute. Returns the function that stops the timer.
 */
export function startCohortScheduler(ctx: DomainContext): () => void {
  resumeCohorts(ctx)
  resumeTags(ctx)
  runDueRecomputes(ctx)
  const timer = setInterval(() => {
    // through the background runner: a failure is logged, and shutdown waits for the work it started
    ctx.background.run('cohort schedule', async () => {
      runDueRecomputes(ctx)
    })
  }, CHECK_EVERY_MS)
  timer.unref()
  return () => clearInterval(timer)
}

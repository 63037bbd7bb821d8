import type { StreamLine } from '../../../src-shared/contract'
import type { Warehouse } from '../../warehouse'
import { contextState } from '../contextState'
import { AppError, badParam } from '../errors'
import type { DomainContext } from '../context'

/**
 * Analyses a caller named with a `runId`, while they run and for a minute after: the progress
 * route reads how far the engine is, the cancel route interrupts the run's connection (DuckDB's
 * interrupt; on ClickHouse a KILL QUERY of the connection's queries by their ids). A cancelled
 * analysis answers `cancelledAnswer`; nothing of it is cached.
 */
export type RunState = 'running' | 'finished' | 'cancelled' | 'failed'

interface Run {
  state: RunState
  conn: Warehouse
  /** Resolves when the run ends, whatever its state. */
  ended: Promise<void>
}

/** How long a finished run's state stays readable (a progress reader that comes late). */
const KEEP_MS = 60_000
/** A runId: 1 to 64 letters, digits, `-` or `_` (the route schemas check it). */
export const RUN_ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$'

const runs = contextState(() => new Map<string, Run>())
/** Cancels that came before their run (a caller's DELETE may overtake its POST): kept a minute. */
const early = contextState(() => new Set<string>())
const keyOf = (appKey: string, runId: string) => `${appKey}\u0000${runId}`

/** 503: what a cancelled analysis answers (the engine stopped it at the caller's request). */
export function cancelledAnswer(runId: string): AppError {
  return new AppError(503, 503, `the analysis ${runId} was cancelled`, ['runId'])
}

/**
 * Runs `work` on `conn` as the run `runId` of the project: its progress readable, its cancel
 * possible. A runId already running in the project is a 400.
 */
export async function tracked<T>(ctx: DomainContext, appKey: string, runId: string, conn: Warehouse, work: () => Promise<T>): Promise<T> {
  const map = runs(ctx)
  const key = keyOf(appKey, runId)
  if (map.get(key)?.state === 'running') throw badParam('runId', `an analysis with runId ${runId} is running already`)
  let end!: () => void
  const run: Run = { state: 'running', conn, ended: new Promise((resolve) => (end = resolve)) }
  map.set(key, run)
  if (early(ctx).delete(key)) run.state = 'cancelled'
  let outcome: { ok: true; result: T } | { ok: false; err: unknown }
  try {
    if (run.state === 'cancelled') throw cancelledAnswer(runId)
    // the engine counts how far a statement is only when asked to (DuckDB; ClickHouse always does)
    for (const statement of conn.dialect.reportProgress()) await conn.run(statement)
    outcome = { ok: true, result: await work() }
  } catch (err) {
    outcome = { ok: false, err }
  }
  if (run.state === 'running') run.state = outcome.ok ? 'finished' : 'failed'
  end()
  setTimeout(() => map.get(key) === run && map.delete(key), KEEP_MS).unref()
  // a cancel that came between two statements stopped none of them: the answer is still a cancel
  if (run.state === 'cancelled') throw cancelledAnswer(runId)
  if (!outcome.ok) throw outcome.err
  return outcome.result
}

/**
 * Cancels the project's running analysis `runId`: false when none runs under that id. A run that
 * has not started yet is cancelled when it starts, within a minute.
 */
export function cancelRun(ctx: DomainContext, appKey: string, runId: string): boolean {
  const key = keyOf(appKey, runId)
  const run = runs(ctx).get(key)
  if (!run) {
    const pending = early(ctx)
    pending.add(key)
    setTimeout(() => pending.delete(key), KEEP_MS).unref()
    return false
  }
  if (run.state !== 'running') return false
  run.state = 'cancelled'
  run.conn.interrupt()
  return true
}

const POLL_MS = 250
/** How long the progress route waits for a run that has not started yet (its POST may come second). */
const WAIT_MS = 10_000

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref())

/** A line of the progress route as the contract describes it. */
const line = (progress: StreamLine<'/uba/api/analyses/{runId}/progress'>) => `${JSON.stringify(progress)}\n`

/**
 * The progress of the run, as JSON lines: `{"state":"running","progress":p}` every 250 ms while it
 * runs (p in percent, -1 while the engine cannot tell), then one line with its end state. A run
 * that does not start within 10 s ends the lines with `{"state":"unknown"}`.
 */
export async function* progressLines(ctx: DomainContext, appKey: string, runId: string, signal: AbortSignal): AsyncGenerator<string> {
  const key = keyOf(appKey, runId)
  const waitUntil = Date.now() + WAIT_MS
  let run = runs(ctx).get(key)
  // the answer starts at once (200, streamed) even while it waits for the run
  if (!run) yield ''
  while (!run && Date.now() < waitUntil && !signal.aborted) {
    await pause(50)
    run = runs(ctx).get(key)
  }
  if (!run) {
    yield line({ state: 'unknown' })
    return
  }
  while (run.state === 'running' && !signal.aborted) {
    const progress = run.conn.progress
    yield line({ state: 'running', progress: progress >= 0 ? Math.round(progress * 10) / 10 : -1 })
    await Promise.race([run.ended, pause(POLL_MS)])
  }
  yield line({ state: run.state })
}

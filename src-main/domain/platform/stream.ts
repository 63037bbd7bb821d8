import type { DomainContext, Operator } from '../context'
import { badParam, engineUnavailable } from '../errors'
import { recordOperation } from '../project/operations'
import { ProjectStatus, StreamState } from './projects'
import { contextState } from '../contextState'

/**
 * The data stream of a project gates what the local collector accepts. Switching is asynchronous
 * (spec 3.4): start goes 0 -> 1 (starting) -> 2 (started), or 3 when the database cannot be opened;
 * stop goes 2 -> 5 (closing) -> 0. A newer switch supersedes one still in flight.
 */
const generations = contextState(() => new Map<string, number>())

function bump(ctx: DomainContext, appKey: string): number {
  const generation = generations(ctx)
  const next = (generation.get(appKey) ?? 0) + 1
  generation.set(appKey, next)
  return next
}

function setState(ctx: DomainContext, appKey: string, state: number, onlyIf?: number): void {
  const sql = onlyIf === undefined
    ? 'UPDATE projects SET stream = ? WHERE app_key = ?'
    : 'UPDATE projects SET stream = ? WHERE app_key = ? AND stream = ?'
  const args = onlyIf === undefined ? [state, appKey] : [state, appKey, onlyIf]
  ctx.meta.prepare(sql).run(...args)
}

export function switchStream(ctx: DomainContext, appKey: string, on: boolean, operator: Operator | null): void {
  const project = ctx.meta.prepare('SELECT status, stream, time_zone FROM projects WHERE app_key = ?').get(appKey) as
    | { status: number; stream: number; time_zone: string }
    | undefined
  if (!project) throw badParam('appKey', `project ${appKey} does not exist`)
  if (project.status !== ProjectStatus.normal) throw badParam('appKey', `project ${appKey} is not available`)

  if (on) {
    if (project.stream === StreamState.starting || project.stream === StreamState.started) return
    setState(ctx, appKey, StreamState.starting)
    recordOperation(ctx.meta, operator, 'stream.start', appKey)
    const gen = bump(ctx, appKey)
    ctx.background.run(`start stream of ${appKey}`, async () => {
      try {
        // the stream writes into the project's database: it must open (ClickHouse's is never recreated)
        await ctx.warehouse.openProject(appKey, project.time_zone)
        // a ClickHouse database dropped on the server: the stream is interrupted, nothing recreates it
        if (!ctx.warehouse.exists(appKey)) throw engineUnavailable(`the database of project ${appKey} is missing`)
        if (generations(ctx).get(appKey) === gen) setState(ctx, appKey, StreamState.started, StreamState.starting)
      } catch (err) {
        if (generations(ctx).get(appKey) === gen) setState(ctx, appKey, StreamState.interrupted, StreamState.starting)
        throw err
      }
    })
  } else {
    if (project.stream === StreamState.notStarted || project.stream === StreamState.closing) return
    setState(ctx, appKey, StreamState.closing)
    recordOperation(ctx.meta, operator, 'stream.stop', appKey)
    const gen = bump(ctx, appKey)
    ctx.background.run(`stop stream of ${appKey}`, async () => {
      // what the stream wrote is made durable in the database file before it counts as closed
      if (ctx.warehouse.exists(appKey)) await ctx.warehouse.withConnection(appKey, project.time_zone, (conn) => conn.run(conn.dialect.compact()))
      if (generations(ctx).get(appKey) === gen) setState(ctx, appKey, StreamState.notStarted, StreamState.closing)
    })
  }
}

/** Settles switches that were in flight when the app last stopped. */
export function resumeStreams(ctx: DomainContext): void {
  const rows = ctx.meta
    .prepare('SELECT app_key, stream FROM projects WHERE status = 1 AND stream IN (1, 5)')
    .all() as { app_key: string; stream: number }[]
  for (const r of rows) {
    const starting = r.stream === StreamState.starting
    // step back to where the interrupted switch began, then run it again
    setState(ctx, r.app_key, starting ? StreamState.notStarted : StreamState.started)
    switchStream(ctx, r.app_key, starting, null)
  }
}

export function isStreamStarted(ctx: DomainContext, appKey: string): boolean {
  const r = ctx.meta.prepare('SELECT stream FROM projects WHERE app_key = ?').get(appKey) as { stream: number } | undefined
  return r?.stream === StreamState.started
}

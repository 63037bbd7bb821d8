import type { DomainContext } from '../context'
import type { ProjectScope } from '../project/scope'

export interface ProjectOverview {
  appKey: string
  name: string
  timeZone: string
  stream: number
  events: number
  users: number
  /** First and last day with events, yyyy-MM-dd in the project's time zone, or null when empty. */
  firstDay: string | null
  lastDay: string | null
}

function day(ds: number | null): string | null {
  if (ds === null) return null
  const s = String(ds)
  return `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}`
}

/** What the authenticated project holds: the first thing an analyst (or the UI) asks. */
export async function projectOverview(ctx: DomainContext, scope: ProjectScope): Promise<ProjectOverview> {
  const meta = ctx.meta.prepare('SELECT cname, stream FROM projects WHERE app_key = ?').get(scope.appKey) as { cname: string; stream: number }
  const counts = await ctx.warehouse.withConnection(scope.appKey, scope.timeZone, async (conn) => {
    const rows = await conn.query(
      `SELECT (SELECT count(*) FROM event_vd) AS events,
              (SELECT count(*) FROM profile_vd) AS users,
              (SELECT min(ds) FROM event_vd) AS first_ds,
              (SELECT max(ds) FROM event_vd) AS last_ds`,
    )
    return rows[0] as { events: bigint; users: bigint; first_ds: number | null; last_ds: number | null }
  })
  return {
    appKey: scope.appKey,
    name: meta.cname,
    timeZone: scope.timeZone,
    stream: meta.stream,
    events: Number(counts.events),
    users: Number(counts.users),
    // ClickHouse answers min/max of no rows as 0, not NULL
    firstDay: Number(counts.events) > 0 ? day(counts.first_ds) : null,
    lastDay: Number(counts.events) > 0 ? day(counts.last_ds) : null,
  }
}

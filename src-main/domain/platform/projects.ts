import { randomBytes } from 'node:crypto'
import { flag, type Stored } from '../../store/meta/flags'
import type { DomainContext, Operator } from '../context'
import { alreadyExists, badParam, quotaReached } from '../errors'
import { preparePlan } from '../schema/plan'
import { recordOperation } from '../project/operations'
import type { ProjectScope } from '../project/scope'
import type { RemoteConnection } from '../../warehouse/router'
import { checkDatabaseFree, recordWarehouse, testWarehouse, warehouseChoice, warehouseView, type WarehouseInput, type WarehouseView } from './projectWarehouse'
import { newToken, sameSecret } from './secrets'
import { numericSetting } from './settings'

/** Project `status` (spec 2.1). */
export const ProjectStatus = { normal: 1, deleted: 2, unavailable: 3 } as const
/** Data stream `stream` (spec 2.1, spec-notes). */
export const StreamState = { notStarted: 0, starting: 1, started: 2, interrupted: 3, closing: 5 } as const

interface ProjectRow {
  app_key: string
  cname: string
  token: string
  status: number
  stream: number
  /** The project's database exists (creation completed). */
  finish: boolean
  time_zone: string
  version: string
  partition_num: number
  sdk_back: string | null
  logo: string | null
  create_time: number
  collector_origins: string
}

/** A project as the platform API shows it (2.1). `timeZone` is this product's addition. */
export interface ProjectView {
  appKey: string
  normalToken?: string
  cname: string
  version: string
  logo?: string
  createTime: number
  sdkBack?: string
  status: number
  partitionNum: number
  stream: number
  timeZone: string
  /** Web origins allowed to upload to the collector; empty: any (UBA Desk addition). */
  collectorOrigins: string[]
  /** Where the project's events live (UBA Desk addition); never the password. */
  warehouse: WarehouseView
  finish?: boolean
}

export function machineTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'
}

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

/** A project's stored list of collector origins (a JSON array; anything else reads as none). */
export function originList(text: string | undefined): string[] {
  try {
    const list = JSON.parse(text ?? '[]') as unknown
    return Array.isArray(list) ? list.filter((o): o is string => typeof o === 'string') : []
  } catch {
    return []
  }
}

function projectRow(r: Stored<ProjectRow>): ProjectRow {
  return { ...r, finish: flag(r.finish) }
}

function view(ctx: DomainContext, row: ProjectRow, withToken: boolean): ProjectView {
  const out: ProjectView = {
    appKey: row.app_key,
    cname: row.cname,
    version: row.version,
    createTime: row.create_time,
    status: row.status,
    partitionNum: row.partition_num,
    stream: row.stream,
    timeZone: row.time_zone,
    collectorOrigins: originList(row.collector_origins),
    // a finished project whose database is gone says so (an unfinished one has none yet)
    warehouse: warehouseView(ctx.meta, row.app_key, !row.finish || ctx.warehouse.exists(row.app_key)),
  }
  if (withToken) out.normalToken = row.token
  if (row.logo) out.logo = row.logo
  if (row.sdk_back) out.sdkBack = row.sdk_back
  if (!withToken) out.finish = row.finish
  return out
}

function row(ctx: DomainContext, appKey: string): ProjectRow | undefined {
  const found = ctx.meta.prepare('SELECT * FROM projects WHERE app_key = ?').get(appKey) as Stored<ProjectRow> | undefined
  return found && projectRow(found)
}

function existing(ctx: DomainContext, appKey: string): ProjectRow {
  const found = row(ctx, appKey)
  if (!found) throw badParam('appKey', `project ${appKey} does not exist`)
  return found
}

/** Projects with status 1, with their tokens; with an operator, only the projects they belong to. */
export function listProjects(ctx: DomainContext, operator: Operator | null): ProjectView[] {
  const rows = operator
    ? (ctx.meta
        .prepare(
          `SELECT p.* FROM projects p
           WHERE p.status = 1 AND (p.created_by = ? OR EXISTS (
             SELECT 1 FROM project_members m WHERE m.app_key = p.app_key AND m.account_id = ?))
           ORDER BY p.create_time, p.app_key`,
        )
        .all(operator.id, operator.id) as Stored<ProjectRow>[])
    : (ctx.meta.prepare('SELECT * FROM projects WHERE status = 1 ORDER BY create_time, app_key').all() as Stored<ProjectRow>[])
  return rows.map((r) => view(ctx, projectRow(r), true))
}

export function getProject(ctx: DomainContext, appKey: string): ProjectView {
  return view(ctx, existing(ctx, appKey), false)
}

export interface NewProject {
  appKey?: string
  name: string
  timeZone?: string
}

/** A project to create through the API: on the embedded DuckDB unless `warehouse` says otherwise. */
export interface NewProjectRequest extends NewProject {
  warehouse?: WarehouseInput
}

/**
 * Creates a project as the API asks: every field is checked first, then a ClickHouse server is
 * tried as the project would use it (a server that does not answer or refuses the user is a 400
 * naming `warehouse`, and nothing is registered).
 */
export async function registerProject(ctx: DomainContext, input: NewProjectRequest, operator: Operator | null): Promise<{ appKey: string }> {
  const { warehouse, ...project } = input
  const choice = warehouseChoice(warehouse)
  if (choice.engine === 'duckdb') return createProject(ctx, project, operator)
  checkNewProject(ctx, project.appKey, project.timeZone ?? machineTimeZone())
  checkDatabaseFree(ctx.meta, choice.connection)
  const found = await testWarehouse(ctx, choice.connection)
  return createProject(ctx, project, operator, { connection: choice.connection, createdDatabase: !found.databaseExists })
}

/** The checks a new project passes before anything is written: its zone, its appKey, the quota. */
function checkNewProject(ctx: DomainContext, appKey: string | undefined, timeZone: string): void {
  if (!isTimeZone(timeZone)) throw badParam('timeZone', `unknown time zone ${timeZone}`)
  if (appKey !== undefined && row(ctx, appKey)) throw alreadyExists(`a project with appKey ${appKey} already exists`)
  const quota = numericSetting(ctx.meta, 'quota.projects')
  const { n } = ctx.meta.prepare('SELECT count(*) AS n FROM projects WHERE status = 1').get() as { n: number }
  if (n >= quota) throw quotaReached(`the platform holds at most ${quota} projects`)
}

/**
 * Registers the project at once and creates its database in the background; `finish` in the
 * detail turns true when the database exists (status 3 if it could not be created). `remote`:
 * the ClickHouse database it lives in (already tried), and whether the app will have created it.
 */
export function createProject(
  ctx: DomainContext,
  input: NewProject,
  operator: Operator | null,
  remote?: { connection: RemoteConnection; createdDatabase: boolean },
): { appKey: string } {
  const appKey = input.appKey ?? generateAppKey(ctx)
  const timeZone = input.timeZone ?? machineTimeZone()
  checkNewProject(ctx, appKey, timeZone)
  // checked again after the server was tried: another creation may have taken the database meanwhile
  if (remote) checkDatabaseFree(ctx.meta, remote.connection)

  ctx.meta.transaction(() => {
    ctx.meta
      .prepare(
        `INSERT INTO projects (app_key, cname, token, status, stream, finish, time_zone, version, create_time, created_by)
         VALUES (?, ?, ?, 1, 0, 0, ?, ?, ?, ?)`,
      )
      .run(appKey, input.name, newToken(), timeZone, ctx.version, Date.now(), operator?.id ?? null)
    if (operator) {
      ctx.meta
        .prepare('INSERT INTO project_members (app_key, account_id, role_id) VALUES (?, ?, 2)')
        .run(appKey, operator.id)
    }
    if (remote) recordWarehouse(ctx.meta, appKey, remote.connection, remote.createdDatabase)
    recordOperation(ctx.meta, operator, 'project.create', appKey)
  })()
  finishCreation(ctx, appKey, timeZone)
  return { appKey }
}

/**
 * Creates the databases of projects whose creation did not finish (the app was closed, or the
 * database could not be created last time: status 3 then, and back to 1 once it works).
 */
export function resumeUnfinishedProjects(ctx: DomainContext): void {
  const rows = ctx.meta.prepare('SELECT app_key, time_zone FROM projects WHERE finish = 0 AND status IN (1, 3)').all() as Pick<
    ProjectRow,
    'app_key' | 'time_zone'
  >[]
  for (const r of rows) finishCreation(ctx, r.app_key, r.time_zone)
}

function finishCreation(ctx: DomainContext, appKey: string, timeZone: string): void {
  ctx.background.run(`create project ${appKey}`, async () => {
    try {
      await ctx.warehouse.createProject(appKey, timeZone)
      await preparePlan(ctx, { appKey, timeZone })
      ctx.meta.prepare('UPDATE projects SET finish = 1, status = 1 WHERE app_key = ?').run(appKey)
    } catch (err) {
      ctx.meta.prepare('UPDATE projects SET status = 3 WHERE app_key = ? AND finish = 0').run(appKey)
      throw err
    }
  })
}

function generateAppKey(ctx: DomainContext): string {
  for (;;) {
    const key = randomBytes(8).toString('hex')
    if (/^[a-z]/.test(key) && !row(ctx, key)) return key
  }
}

/** Finds the project a pair of project credentials opens, or null. */
export function authenticateProject(ctx: DomainContext, appKey: string | undefined, token: string | undefined): ProjectScope | null {
  if (!appKey || !token) return null
  const found = row(ctx, appKey)
  // compare even when the project is unknown, so timing does not tell which appKeys exist
  const ok = sameSecret(token, found?.token ?? 'no-such-project')
  if (!found || !ok || found.status !== ProjectStatus.normal) return null
  return { appKey: found.app_key, timeZone: found.time_zone }
}

/** The credentials of every normal project, for the `credentials` command and the desktop shell. */
export function projectCredentials(ctx: DomainContext): { appKey: string; token: string; name: string }[] {
  return (ctx.meta.prepare('SELECT app_key, token, cname FROM projects WHERE status = 1 ORDER BY create_time, app_key').all() as Pick<ProjectRow, 'app_key' | 'token' | 'cname'>[]).map(
    (r) => ({ appKey: r.app_key, token: r.token, name: r.cname }),
  )
}

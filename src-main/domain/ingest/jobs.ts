import { randomUUID } from 'node:crypto'
import { rmSync } from 'node:fs'
import { basename } from 'node:path'
import type { Warehouse } from '../../warehouse'
import type { DomainContext, Operator } from '../context'
import { AppError, badParam } from '../errors'
import { recordOperation } from '../project/operations'
import type { ProjectScope } from '../project/scope'
import { forgetOutcomes, prepareOutcomes } from '../outcomes'
import { recordReported } from '../schema/plan'
import { testPause } from '../../testPause'
import type { Answer } from '../../../src-shared/contract'
import { importFile, type ImportSpec, type OnPhase, type Phase } from './importer'
import { jobKey, sealJob } from './jobOutcome'
import { RejectedRecords, type LoadResult, type Rejection } from './load'
import { withWriteLock } from '../writeLock'
import { failureText, readerProblem, warehouseRefusal } from '../../warehouse/errors'
import { contextState } from '../contextState'

/**
 * Import jobs: queued per project (one writer at a time), run in the background, observable with
 * progress, cancellable. State lives in the metadata database, so it outlives the request and,
 * for finished jobs, the app.
 */

/** A job as the API answers it (GET /uba/api/import/jobs/{id}); the route schema is its source. */
export type JobView = Answer<'/uba/api/import/jobs/{id}'>
export type JobState = JobView['state']

export interface JobRow {
  id: string
  app_key: string
  state: JobState
  kind: string
  format: string
  source: string
  options: string
  rows_read: number
  rows_written: number
  rows_rejected: number
  percent: number
  rejected: string
  error: string | null
  create_time: number
  start_time: number | null
  end_time: number | null
}

/** Where each phase starts and how much of the bar it takes. */
const PHASES: Record<Phase, [number, number]> = { reading: [0, 60], checking: [60, 15], writing: [75, 25] }

interface Live {
  phase: Phase | null
  conn: Warehouse | null
  cancelled: boolean
}
/** The jobs running in this server, by id. */
const liveJobs = contextState(() => new Map<string, Live>())

function view(ctx: DomainContext, row: JobRow): JobView {
  const l = liveJobs(ctx).get(row.id)
  const options = JSON.parse(row.options) as { result?: JobView['result'] }
  return {
    id: row.id,
    state: row.state,
    phase: l?.phase ?? null,
    kind: row.kind,
    format: row.format,
    source: row.source,
    rowsRead: row.rows_read,
    rowsWritten: row.rows_written,
    rowsRejected: row.rows_rejected,
    percent: Math.round(row.percent * 10) / 10,
    rejected: JSON.parse(row.rejected) as Rejection[],
    error: row.error,
    createTime: row.create_time,
    startTime: row.start_time,
    endTime: row.end_time,
    result: options.result ?? null,
  }
}

function find(ctx: DomainContext, appKey: string, id: string): JobRow {
  const row = ctx.meta.prepare('SELECT * FROM import_jobs WHERE id = ? AND app_key = ?').get(id, appKey) as JobRow | undefined
  if (!row) throw badParam('id', `import job ${id} does not exist in this project`)
  return row
}

export function getJob(ctx: DomainContext, appKey: string, id: string): JobView {
  return view(ctx, find(ctx, appKey, id))
}

export function listJobs(ctx: DomainContext, appKey: string): JobView[] {
  return (ctx.meta.prepare('SELECT * FROM import_jobs WHERE app_key = ? ORDER BY create_time DESC LIMIT 50').all(appKey) as JobRow[]).map((row) => view(ctx, row))
}

export function update(ctx: DomainContext, id: string, fields: Partial<Record<keyof JobRow, unknown>>): void {
  const keys = Object.keys(fields)
  ctx.meta.prepare(`UPDATE import_jobs SET ${keys.map((k) => `${k} = ?`).join(', ')} WHERE id = ?`).run(...keys.map((k) => (fields as Record<string, unknown>)[k]), id)
}

/** Polls the engine's progress of the running statement into the job's percent. */
function trackProgress(ctx: DomainContext, id: string, l: Live): () => void {
  const timer = setInterval(() => {
    if (!l.conn || !l.phase) return
    const [start, width] = PHASES[l.phase]
    const p = l.conn.progress
    const within = p >= 0 ? Math.min(p, 100) / 100 : 0
    update(ctx, id, { percent: start + width * within })
  }, 200)
  timer.unref()
  return () => clearInterval(timer)
}

/** What a job is, for its listing: kind (events, profiles, sample), format and source name. */
export interface JobLabel {
  kind: string
  format: string
  source: string
  options: Record<string, unknown>
}

/**
 * The work of a job: on the project's connection, reporting its phase; resolves to its counts.
 * It writes in one transaction and calls `seal` with its result right before that COMMIT, so that
 * the job's outcome commits with its data (see domain/outcomes.ts).
 */
export type JobWork = (conn: Warehouse, onPhase: OnPhase, seal: (result: LoadResult) => Promise<void>) => Promise<LoadResult>

/**
 * What a job does in the metadata once its data committed (the plan). Start-up runs it again for a
 * job whose data committed just before the app stopped, so it must be safe to repeat.
 */
export type Settle = (result: LoadResult) => void | Promise<void>

/** The plan side of an import: what reported is marked in the project's plan. */
export function settleImport(ctx: DomainContext, appKey: string): Settle {
  return (result) => recordReported(ctx.meta, appKey, result.reported)
}

/** A job's row once it succeeded with `result`; `options` is the job's stored options. */
export function succeededFields(options: string, result: LoadResult): Partial<Record<keyof JobRow, unknown>> {
  const { eventsWritten, profilesChanged, debugSkipped, duplicatesSkipped, aliasesMerged, aliasesIgnored, aliasProblems } = result
  // the alias counts appear when the file held $alias records
  const aliases = aliasesMerged + aliasesIgnored > 0 ? { aliasesMerged, aliasesIgnored, aliasProblems } : {}
  return {
    state: 'succeeded',
    percent: 100,
    rows_read: result.rowsRead,
    rows_written: eventsWritten + profilesChanged,
    rows_rejected: result.rowsRejected,
    rejected: JSON.stringify(result.rejected),
    error: null,
    options: JSON.stringify({ ...JSON.parse(options), result: { eventsWritten, profilesChanged, debugSkipped, duplicatesSkipped, ...aliases } }),
    end_time: Date.now(),
  }
}

/** Queues an import of a file and returns at once. `upload` is an uploaded file to delete afterwards. */
export function startImportJob(ctx: DomainContext, scope: ProjectScope, spec: ImportSpec, operator: Operator | null, upload?: { file: string; name: string }): JobView {
  const label = {
    kind: spec.kind,
    format: spec.format,
    source: upload?.name ?? basename(spec.file),
    options: { mapping: spec.mapping, onError: spec.onError, dedupe: spec.dedupe, sheet: spec.sheet, delimiter: spec.delimiter, decimal: spec.decimal },
  }
  const work: JobWork = (conn, onPhase, seal) => importFile(ctx, scope, conn, spec, onPhase, seal)
  return startJob(ctx, scope, label, work, settleImport(ctx, scope.appKey), operator, () => {
    if (upload) rmSync(upload.file, { force: true })
  })
}

/**
 * Queues a job that writes into the project's warehouse and returns at once. Jobs of one project
 * run one at a time; `cleanup` runs when the job has ended, whatever the outcome.
 */
export function startJob(ctx: DomainContext, scope: ProjectScope, label: JobLabel, work: JobWork, settle: Settle, operator: Operator | null, cleanup?: () => void): JobView {
  const id = randomUUID()
  ctx.meta
    .prepare(
      `INSERT INTO import_jobs (id, app_key, state, kind, format, source, options, create_time, created_by)
       VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?)`,
    )
    .run(id, scope.appKey, label.kind, label.format, label.source, JSON.stringify(label.options), Date.now(), operator?.id ?? null)
  recordOperation(ctx.meta, operator, `job.start.${label.kind}`, scope.appKey, id)
  const l: Live = { phase: null, conn: null, cancelled: false }
  liveJobs(ctx).set(id, l)
  ctx.background.run(`job ${id}`, () =>
    withWriteLock(ctx, scope.appKey, async () => {
      if (l.cancelled) return
      update(ctx, id, { state: 'running', start_time: Date.now() })
      let unsettled: unknown = null
      const stop = trackProgress(ctx, id, l)
      try {
        await ctx.warehouse.withLoading(scope.appKey, scope.timeZone, async (conn) => {
          l.conn = conn
          // a ClickHouse project's load seals its outcome where its data is stored, with it
          const stored = conn.stored ?? conn
          if (conn.stored) await prepareOutcomes(conn.stored)
          for (const statement of conn.dialect.reportProgress()) await conn.run(statement)
          const result = await work(
            conn,
            async (phase, rowsRead) => {
              // a cancel between statements (no query to interrupt) is honoured at the next phase
              if (l.cancelled) throw new AppError(400, 400, 'cancelled')
              l.phase = phase
              update(ctx, id, { percent: PHASES[phase][0], ...(rowsRead === undefined ? {} : { rows_read: rowsRead }) })
              await testPause(phase, `job ${id}`)
            },
            async (sealed) => {
              await sealJob(stored, id, sealed)
              await testPause('before-commit', `job ${id}`)
            },
          )
          // the data and its outcome are committed: from here on the job has succeeded, and a crash
          // is settled at start-up from the sealed outcome; no progress is polled over its 100 %
          l.phase = null
          await testPause('after-commit', `job ${id}`)
          try {
            await settle(result)
          } catch (err) {
            unsettled = err
          }
          update(ctx, id, succeededFields(JSON.stringify(label.options), result))
          // kept when the plan is not settled yet: the next start settles it from there
          if (unsettled === null) await forgetOutcomes(stored, [jobKey(id)]).catch(() => undefined)
        })
      } catch (err) {
        finishFailed(ctx, id, l, err)
      } finally {
        stop()
        l.conn = null
        l.phase = null
      }
      // logged by the background runner
      if (unsettled !== null) throw unsettled
    }).finally(() => {
      liveJobs(ctx).delete(id)
      cleanup?.()
    }),
  )
  return getJob(ctx, scope.appKey, id)
}

function finishFailed(ctx: DomainContext, id: string, l: Live, err: unknown): void {
  if (l.cancelled) {
    update(ctx, id, { state: 'cancelled', end_time: Date.now(), error: 'cancelled; nothing was imported' })
    return
  }
  const fields: Partial<Record<keyof JobRow, unknown>> = { state: 'failed', end_time: Date.now(), error: failureMessage(err) }
  if (err instanceof RejectedRecords) {
    fields.rows_read = err.result.rowsRead
    fields.rows_rejected = err.result.rowsRejected
    fields.rejected = JSON.stringify(err.result.rejected)
  }
  update(ctx, id, fields)
}

/** What went wrong, in words for the user: the file's problem, never a stack. */
function failureMessage(err: unknown): string {
  if (err instanceof AppError) return err.message
  // the project's ClickHouse server refused a statement: the server's problem, not the file's
  const refused = warehouseRefusal(err)
  if (refused) return refused.message
  const firstLine = failureText(err)
  const problem = readerProblem(err)
  if (problem === 'line-too-long') return `a line is longer than the 8 MB a record may take: ${firstLine}`
  if (problem === 'damaged-compression') return `the compressed file is damaged or truncated: ${firstLine}`
  return `the file could not be read: ${firstLine}`
}

/** Cancels a queued or running job: it ends as cancelled and leaves nothing behind. */
export function cancelJob(ctx: DomainContext, appKey: string, id: string, operator: Operator | null): JobView {
  const row = find(ctx, appKey, id)
  if (row.state !== 'queued' && row.state !== 'running') throw badParam('id', `import job ${id} has already ${row.state}`)
  const l = liveJobs(ctx).get(id)
  if (l) {
    l.cancelled = true
    l.conn?.interrupt()
  }
  if (row.state === 'queued') update(ctx, id, { state: 'cancelled', end_time: Date.now(), error: 'cancelled before it started' })
  recordOperation(ctx.meta, operator, 'job.cancel', appKey, id)
  return getJob(ctx, appKey, id)
}


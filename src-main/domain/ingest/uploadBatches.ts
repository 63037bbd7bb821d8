import { randomUUID } from 'node:crypto'
import type { Warehouse } from '../../warehouse'
import type { DomainContext } from '../context'
import type { ProjectScope } from '../project/scope'
import { forgetOutcomes, prepareOutcomes, sealOutcome } from '../outcomes'
import { recordReported } from '../schema/plan'
import { testPause } from '../../testPause'
import { LockTimeout, withWriteLock } from '../writeLock'
import { settleMerges } from './alias'
import { normalize } from './importer'
import { sealedReported, uploadKey } from './jobOutcome'
import { loadNorm, type LoadResult } from './load'
import { batchProblems, logBatchProblems } from './problems'
import { stageRecordTexts } from './stage'
import { groupUploads, loadGroup, type UploadWritten } from './uploadGroups'

/**
 * Group commit of the collector's uploads, per project. Every upload used to commit a DuckDB
 * transaction of its own (about 100 ms quiet, 450 ms loaded) one after another, so a burst of the
 * SDKs' small batches (many browsers, many server threads) waited out its 5 s and was refused. Now
 * uploads that arrive while the project's writer is busy wait here, and the writer takes all of
 * them (up to BATCH_MAX_RECORDS) into ONE transaction. Inside it each upload still goes alone
 * through the load path (stage, check, load) in arrival order, seeing what the earlier ones wrote:
 * new columns, merges, profile states; runs of uploads that cannot tell the difference are loaded
 * as one (uploadGroups.ts). So the stored data, each upload's counts and its problems are those of
 * the uploads written one by one. An upload is answered once the transaction holding its records
 * committed.
 */


/** How long the writer waits for a project busy with another writer (an import) before its uploads are told to retry. */
export const LOCK_WAIT_MS = 5000
/** One transaction holds at most this many records (a batch ends before the upload that would pass it; one upload always fits). */
export const BATCH_MAX_RECORDS = 50_000
/** The record texts waiting for a project's writer; an upload beyond is refused 503 (send again), like the decoders' bound. */
export const WAITING_MAX_BYTES = 64 * 1024 * 1024

/** An upload refused because too many wait for the project's writer: a LockTimeout for the busy log and the 503. */
export class WriterQueueFull extends LockTimeout {
  constructor() {
    super()
    this.message = "too many uploads are waiting for the project's writer; send again shortly"
  }
}

interface Waiting {
  texts: string[]
  bytes: number
  resolve: (written: UploadWritten) => void
  reject: (err: unknown) => void
}

interface ProjectQueue {
  waiting: Waiting[]
  bytes: number
  writing: boolean
}

const queues = new WeakMap<object, Map<string, ProjectQueue>>()

function queueOf(ctx: DomainContext, appKey: string): ProjectQueue {
  let byProject = queues.get(ctx.warehouse)
  if (!byProject) queues.set(ctx.warehouse, (byProject = new Map()))
  let queue = byProject.get(appKey)
  if (!queue) byProject.set(appKey, (queue = { waiting: [], bytes: 0, writing: false }))
  return queue
}

/** The uploads waiting for a project's writer (tests and diagnostics). */
export function writerQueue(ctx: DomainContext, appKey: string): { waiting: number; bytes: number; writing: boolean } {
  const q = queueOf(ctx, appKey)
  return { waiting: q.waiting.length, bytes: q.bytes, writing: q.writing }
}

/** Stores one upload's records (JSON texts) of a project, in a transaction shared with the uploads waiting beside it. */
export function writeUpload(ctx: DomainContext, appKey: string, timeZone: string, texts: string[]): Promise<UploadWritten> {
  const queue = queueOf(ctx, appKey)
  const bytes = texts.reduce((sum, t) => sum + t.length, 0)
  if (queue.waiting.length > 0 && queue.bytes + bytes > WAITING_MAX_BYTES) return Promise.reject(new WriterQueueFull())
  return new Promise<UploadWritten>((resolve, reject) => {
    queue.waiting.push({ texts, bytes, resolve, reject })
    queue.bytes += bytes
    if (!queue.writing) void drain(ctx, appKey, timeZone, queue)
  })
}

/** The writer of a project: batch after batch while uploads wait. */
async function drain(ctx: DomainContext, appKey: string, timeZone: string, queue: ProjectQueue): Promise<void> {
  queue.writing = true
  try {
    while (queue.waiting.length > 0) {
      const batch: Waiting[] = []
      let records = 0
      while (queue.waiting.length > 0 && (batch.length === 0 || records + queue.waiting[0].texts.length <= BATCH_MAX_RECORDS)) {
        const next = queue.waiting.shift()!
        queue.bytes -= next.bytes
        records += next.texts.length
        batch.push(next)
      }
      await writeBatch(ctx, appKey, timeZone, batch)
    }
  } finally {
    queue.writing = false
  }
}

async function writeBatch(ctx: DomainContext, appKey: string, timeZone: string, batch: Waiting[]): Promise<void> {
  try {
    const written = await withWriteLock(ctx, appKey, () => ctx.warehouse.withLoading(appKey, timeZone, (conn) => writeTogether(ctx, { appKey, timeZone }, conn, batch.map((w) => w.texts))), LOCK_WAIT_MS)
    batch.forEach((w, i) => w.resolve(written[i]))
  } catch (err) {
    // the batch was rolled back whole. An engine error may come from one upload (a poisoned one,
    // or one too large for the warehouse's memory): each is written alone then, so that it alone
    // is refused and the others are stored. A busy project refuses every upload alike.
    if (batch.length === 1 || err instanceof LockTimeout) {
      for (const w of batch) w.reject(err)
      return
    }
    for (const w of batch) await writeBatch(ctx, appKey, timeZone, [w])
  }
}

/**
 * One transaction for the uploads, in arrival order: runs that can load as one (uploadGroups.ts)
 * do, the others load alone. After the commit: the plan learns what each load reported, in order
 * (as their own commits would have told it), and each upload's problems are logged.
 */
async function writeTogether(ctx: DomainContext, scope: ProjectScope, conn: Warehouse, uploads: string[][]): Promise<UploadWritten[]> {
  const appKey = scope.appKey
  const written: UploadWritten[] = []
  const loads: (LoadResult & { key: string })[] = []
  // a ClickHouse project's loads seal their outcomes where their data is stored, with it
  const stored = conn.stored ?? conn
  if (conn.stored) await prepareOutcomes(conn.stored)
  if (uploads.length === 1) return [await writeAlone(ctx, scope, conn, uploads[0])]
  const groups = groupUploads(ctx, appKey, uploads, [])
  // staged before the transaction: rows a transaction appends have no line numbers as rowids
  // (DuckDB numbers them from 2^55 until the commit), and a load reads a record's rowid as its row
  const staged = (k: number) => `stage_records_${k}`
  for (const [k, members] of groups.entries()) await stageRecordTexts(conn, members.flatMap((i) => uploads[i]), staged(k))
  const d = conn.dialect
  await conn.run(d.dropTable('stage_records', true))
  try {
    await conn.transaction(async () => {
      for (const [k, members] of groups.entries()) {
        await conn.run(d.renameTable(staged(k), 'stage_records'))
        // the properties the earlier loads brought are typed as they did, not inferred again
        const pending = loads.map((l) => l.reported)
        // what each load reported is sealed with its rows, so that a crash before the plan knows it
        // is settled at the next start (recover.ts); forgotten once the plan says the same
        const key = uploadKey(randomUUID())
        const beforeCommit = (loaded: LoadResult) => sealOutcome(stored, key, { reported: sealedReported(loaded.reported) })
        if (members.length > 1) {
          const { load, each } = await loadGroup(ctx, scope, conn, members.map((i) => uploads[i]), pending, { beforeCommit })
          loads.push({ ...load, key })
          written.push(...each)
        } else {
          const plan = await normalize(ctx, scope, conn, 'stage_records', { kind: 'events', mapping: {}, lenient: true, pending })
          const done = await loadNorm(conn, plan.events, plan.users, plan.unsetIds, { onError: 'skip', dedupe: false, beforeCommit, inOpenTransaction: true })
          loads.push({ ...done, key })
          written.push({ ...done, found: await batchProblems(conn) })
        }
        if (k < groups.length - 1) await conn.run(d.dropTable('stage_records'))
      }
      await testPause('before-commit', `load of ${uploads.length} uploads ${appKey}`)
      if (uploads.length > 1) await testPause('before-batch-commit', `load of ${uploads.length} uploads ${appKey}`)
    })
  } catch (err) {
    for (const k of groups.keys()) await conn.run(d.dropTable(staged(k), true)).catch(() => undefined)
    throw err
  }
  if (loads.some((l) => l.mergesToSettle)) await settleMerges(conn)
  await testPause('after-commit', `upload ${appKey}`)
  for (const l of loads) recordReported(ctx.meta, appKey, l.reported)
  await forgetOutcomes(stored, loads.map((l) => l.key)).catch(() => undefined)
  for (const w of written) logBatchProblems(ctx.meta, appKey, w.found)
  return written
}

/** An upload with none waiting beside it: the load path as it was before batches, nothing added to its time. */
async function writeAlone(ctx: DomainContext, scope: ProjectScope, conn: Warehouse, texts: string[]): Promise<UploadWritten> {
  await stageRecordTexts(conn, texts)
  const plan = await normalize(ctx, scope, conn, 'stage_records', { kind: 'events', mapping: {}, lenient: true })
  const key = uploadKey(randomUUID())
  const stored = conn.stored ?? conn
  const beforeCommit = (loaded: LoadResult) => sealOutcome(stored, key, { reported: sealedReported(loaded.reported) })
  const done = await loadNorm(conn, plan.events, plan.users, plan.unsetIds, { onError: 'skip', dedupe: false, beforeCommit })
  await testPause('after-commit', `upload ${scope.appKey}`)
  recordReported(ctx.meta, scope.appKey, done.reported)
  await forgetOutcomes(stored, [key]).catch(() => undefined)
  const found = await batchProblems(conn)
  logBatchProblems(ctx.meta, scope.appKey, found)
  return { ...done, found }
}

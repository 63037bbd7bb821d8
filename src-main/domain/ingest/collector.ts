import { gunzipSync } from 'node:zlib'
import type { DomainContext } from '../context'
import { AppError, badParam } from '../errors'
import { ProjectStatus, StreamState } from '../platform/projects'
import { recordReported } from '../schema/plan'
import { normalize } from './importer'
import { loadNorm, type Rejection } from './load'
import { stageRecordTexts } from './stage'
import { withWriteLock } from '../writeLock'

/**
 * The local collector: what the SDKs upload, routed by each record's `appid`, stored only while
 * that project's data stream is started. Records are checked exactly like an import (with
 * onError skip: a bad record never blocks the good ones); `$debug` 1 records are checked and not
 * stored.
 */

export interface CollectResult {
  code: 200
  received: number
  stored: number
  rejected: number
  debug: number
  /** The first rejected records and ignored `$alias` records, with reasons (the record's position in the upload). */
  problems: Rejection[]
  /** Present when the upload held `$alias` records that merged users or were ignored (README "Identities"). */
  aliasesMerged?: number
  aliasesIgnored?: number
}

/** How long an upload waits for a project busy with an import before the SDK is told to retry. */
const LOCK_WAIT_MS = 5000

/** The upload's records: a JSON array (or one record), or that JSON gzipped then base64-encoded. */
export function decodeUpload(body: string): unknown[] {
  let text = body.trim()
  if (text.startsWith('data=')) text = decodeURIComponent(text.slice(5).replace(/\+/g, ' ')).trim()
  if (!text.startsWith('[') && !text.startsWith('{')) {
    const bytes = Buffer.from(text, 'base64')
    try {
      text = (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString('utf8')
    } catch {
      throw badParam('body', 'the upload is gzip-then-base64 but does not unzip')
    }
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw badParam('body', 'the upload is neither a JSON array of records nor gzip-then-base64 JSON')
  }
  const records = Array.isArray(parsed) ? parsed : [parsed]
  if (records.length === 0) throw badParam('body', 'the upload holds no records')
  return records
}

export async function collect(ctx: DomainContext, records: unknown[]): Promise<CollectResult> {
  const byProject = new Map<string, { index: number; text: string }[]>()
  const problems: Rejection[] = []
  records.forEach((record, i) => {
    const appid = record && typeof record === 'object' ? (record as { appid?: unknown }).appid : undefined
    if (typeof appid !== 'string' || appid === '') {
      problems.push({ row: i + 1, property: 'appid', value: null, reason: 'is missing: it names the project' })
      return
    }
    byProject.set(appid, [...(byProject.get(appid) ?? []), { index: i + 1, text: JSON.stringify(record) }])
  })
  // every target project must accept data before anything is stored
  const projects = [...byProject.keys()].map((appKey) => {
    const row = ctx.meta.prepare('SELECT status, stream, time_zone FROM projects WHERE app_key = ?').get(appKey) as
      | { status: number; stream: number; time_zone: string }
      | undefined
    return { appKey, row }
  })
  for (const { appKey, row } of projects) {
    if (!row || row.status !== ProjectStatus.normal) {
      for (const r of byProject.get(appKey)!) problems.push({ row: r.index, property: 'appid', value: appKey, reason: 'names no project' })
      byProject.delete(appKey)
    } else if (row.stream !== StreamState.started) {
      throw new AppError(503, 503, `the data stream of project ${appKey} is not started; start it (POST /uba/manage/enterprise/projects/${appKey}/stream {"streamSwitch": true}) and send again`)
    }
  }
  const result: CollectResult = { code: 200, received: records.length, stored: 0, rejected: problems.length, debug: 0, problems }
  for (const { appKey, row } of projects) {
    const batch = byProject.get(appKey)
    if (!batch || !row) continue
    const scope = { appKey, timeZone: row.time_zone }
    const loaded = await withWriteLock(ctx, appKey, () =>
      ctx.warehouse.withConnection(appKey, row.time_zone, async (conn) => {
        await stageRecordTexts(conn, batch.map((r) => r.text))
        const plan = await normalize(ctx, scope, conn, 'stage_records', { kind: 'events', mapping: {} })
        const done = await loadNorm(conn, plan.events, plan.users, plan.unsetIds, { onError: 'skip', dedupe: false })
        recordReported(ctx.meta, appKey, done.reported)
        return done
      }), LOCK_WAIT_MS)
    result.stored += loaded.eventsWritten + loaded.profilesChanged
    result.rejected += loaded.rowsRejected
    result.debug += loaded.debugSkipped
    for (const p of [...loaded.rejected, ...loaded.aliasProblems]) problems.push({ ...p, row: batch[p.row - 1].index })
    if (loaded.aliasesMerged + loaded.aliasesIgnored > 0) {
      result.aliasesMerged = (result.aliasesMerged ?? 0) + loaded.aliasesMerged
      result.aliasesIgnored = (result.aliasesIgnored ?? 0) + loaded.aliasesIgnored
    }
  }
  result.problems = problems.sort((a, b) => a.row - b.row).slice(0, 20)
  return result
}

import type { DomainContext } from '../context'
import { AppError } from '../errors'
import { originMayUpload } from '../platform/collectorOrigins'
import { ProjectStatus, StreamState } from '../platform/projects'
import type { Rejection } from './load'
import { logBusyRefusal } from './busyRefusals'
import { logRefusedUpload } from './problems'
import { logUnknownAppids } from './unknownProjects'
import { stringField } from './uploadPeek'
import type { DecodedUpload } from './uploadDecode'
import { LockTimeout } from '../writeLock'
import { engineFailure } from '../../warehouse/errors'
import { writeUpload } from './uploadBatches'

/**
 * The local collector: what the SDKs upload, routed by each record's `appid`, stored only while
 * that project's data stream is started. Records are read leniently: only a record without a
 * usable identity is refused; a value that does not fit is left out of its record, which is
 * stored. Everything refused or left out goes to the project's problem log (problems.ts), since
 * no SDK reads the answer. `$debug` 1 records are checked and not stored.
 */

export interface CollectResult {
  code: 200
  received: number
  stored: number
  rejected: number
  debug: number
  /** The first rejected records and ignored `$alias` records, with reasons (the record's position in the upload). */
  problems: Rejection[]
  /** Values left out of stored records because they do not fit their property. */
  valuesDropped: number
  /** The first values left out, with reasons (the record's position in the upload). */
  dropped: Rejection[]
  /** Present when the upload held `$alias` records that merged users or were ignored (README "Identities"). */
  aliasesMerged?: number
  aliasesIgnored?: number
}

/** Where an upload comes from, for the projects' allowed origins (see collectorOrigins). */
export interface UploadSource {
  /** The browser page's origin; undefined when the request is not a browser's. */
  origin?: string
  /** The upload's bytes as received, for the busy refusals' log. */
  bytes?: number
}

/**
 * Each record goes to the project its own `appid` names; a record naming none takes the address's
 * `appid` (the browser and Node SDKs put it there). A record whose `appid` differs from the
 * address's follows its own, and the reply says so once per such appid.
 */
function routeRecords(upload: DecodedUpload, problems: Rejection[], notes: Rejection[], unknown: Map<string | null, string[]>): Map<string, { index: number; text: string }[]> {
  const byProject = new Map<string, { index: number; text: string }[]>()
  const differing = new Set<string>()
  upload.records.forEach((record, i) => {
    const appid = record.appid ?? upload.appid
    if (appid === null) {
      problems.push({ row: i + 1, property: 'appid', value: null, reason: 'is missing: it names the project' })
      const none = unknown.get(null) ?? []
      none.push(record.text)
      unknown.set(null, none)
      return
    }
    if (upload.appid !== null && record.appid !== null && record.appid !== upload.appid && !differing.has(record.appid)) {
      differing.add(record.appid)
      notes.push({ row: i + 1, property: 'appid', value: record.appid, reason: `differs from the address's appid ${upload.appid}: the record's own is followed (stored, not rejected)` })
    }
    const batch = byProject.get(appid) ?? []
    batch.push({ index: i + 1, text: record.text })
    byProject.set(appid, batch)
  })
  return byProject
}

export async function collect(ctx: DomainContext, upload: DecodedUpload, source: UploadSource = {}): Promise<CollectResult> {
  const problems: Rejection[] = []
  const notes: Rejection[] = []
  const unknown = new Map<string | null, string[]>()
  const byProject = routeRecords(upload, problems, notes, unknown)
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
      unknown.set(appKey, byProject.get(appKey)!.map((r) => r.text))
      byProject.delete(appKey)
    } else if (!originMayUpload(ctx.meta, appKey, source.origin)) {
      throw new AppError(400, 400, `project ${appKey} does not accept uploads from the web origin ${source.origin || '(not named by the browser)'} (its allowed origins: POST /uba/manage/enterprise/projects/${appKey}/collector)`, ['Origin'])
    }
  }
  // no project's log can hold these: the server-wide one does, shown in every project's log
  logUnknownAppids(ctx.meta, unknown)
  // the developer sees the refused uploads of every stopped project in its problem log
  const stopped = projects.filter(({ appKey, row }) => row && byProject.has(appKey) && row.stream !== StreamState.started)
  for (const { appKey } of stopped) logRefusedUpload(ctx.meta, appKey, byProject.get(appKey)!.length)
  if (stopped.length > 0) {
    const appKey = stopped[0].appKey
    throw new AppError(503, 503, `the data stream of project ${appKey} is not started; start it (POST /uba/manage/enterprise/projects/${appKey}/stream {"streamSwitch": true}) and send again`)
  }
  const dropped: Rejection[] = []
  const result: CollectResult = { code: 200, received: upload.records.length, stored: 0, rejected: problems.length, debug: 0, problems, valuesDropped: 0, dropped }
  for (const { appKey, row } of projects) {
    const batch = byProject.get(appKey)
    if (!batch || !row) continue
    // written together with the uploads waiting beside it, in one transaction (uploadBatches.ts)
    const loaded = await writeUpload(ctx, appKey, row.time_zone, batch.map((r) => r.text)).catch((err: unknown) => {
      // the warehouse's memory limit (SET memory_limit) is the user's setting: too large for it is the upload's size
      // the SDK is told to send again, which most do not: the refusal is logged under the project
      if (err instanceof LockTimeout) {
        const first = batch[0].text
        logBusyRefusal(ctx.meta, { appid: appKey, lib: stringField(first, '$lib'), libVersion: stringField(first, '$lib_version'), reason: 'writer', records: batch.length, bytes: source.bytes ?? 0 })
      }
      if (engineFailure(err) === 'out-of-memory') {
        throw new AppError(413, 413, `project ${appKey} has too little warehouse memory to store this upload at once; send it in smaller batches`, ['body'])
      }
      throw err
    })
    result.stored += loaded.eventsWritten + loaded.profilesChanged
    result.rejected += loaded.rowsRejected
    result.debug += loaded.debugSkipped
    result.valuesDropped += loaded.found.valuesDropped
    for (const p of [...loaded.rejected, ...loaded.aliasProblems]) problems.push({ ...p, row: batch[p.row - 1].index })
    for (const p of loaded.found.dropped) dropped.push({ ...p, row: batch[p.row - 1].index })
    if (loaded.aliasesMerged + loaded.aliasesIgnored > 0) {
      result.aliasesMerged = (result.aliasesMerged ?? 0) + loaded.aliasesMerged
      result.aliasesIgnored = (result.aliasesIgnored ?? 0) + loaded.aliasesIgnored
    }
  }
  result.problems = [...problems, ...notes].sort((a, b) => a.row - b.row).slice(0, 20)
  result.dropped = dropped.sort((a, b) => a.row - b.row).slice(0, 20)
  return result
}

import type { MetaDb } from '../../store/meta'
import { ProjectStatus } from '../platform/projects'
import { APPID_CHARS } from './unknownProjects'
import type { UploadSender } from './uploadPeek'

/**
 * Uploads the collector answered 503 "send again" because it was busy: every decode thread taken
 * and the waiting uploads' bytes full (reason `decoders`, refused before decoding: the sender is
 * read from the upload's first kilobytes, uploadPeek.ts), or the project busy writing for longer
 * than an upload waits (reason `writer`, after decoding). Most SDKs drop a batch on a 503 and none
 * tells anyone, so each refusal is counted: under its project when the appid names one, else
 * server-wide (shown in every project's log, like records naming no known project). Bounded: one
 * row per project, reason and SDK, at most BUSY_LIBS_KEPT SDKs named per project and reason.
 */

export type BusyReason = 'decoders' | 'writer'

/** SDKs (`$lib`) named per project and reason; uploads of others count under "not said". */
export const BUSY_LIBS_KEPT = 10
const LIB_CHARS = 50

export interface BusyRefusal {
  /** `project`: this project's uploads; `server`: uploads whose project could not be told (or an unknown one). */
  scope: 'project' | 'server'
  reason: BusyReason
  /** The latest appid named, for server-wide rows (null: none could be read). */
  appid: string | null
  /** The SDK (`$lib` of the first record), null when it did not say (or could not be read). */
  lib: string | null
  libVersion: string | null
  uploads: number
  /** Records the refused uploads held: known only for `writer` (decoded); 0 for `decoders`. */
  records: number
  /** Bytes of the refused uploads, as received (body, or the address of an image request). */
  bytes: number
  lastTime: number
}

export interface BusyRefusals {
  uploads: number
  bytes: number
  lastTime: number
  /** The latest first. */
  refusals: BusyRefusal[]
}

export interface BusyUpload extends UploadSender {
  reason: BusyReason
  records: number
  bytes: number
}

/** Counts one upload refused because the collector was busy. */
export function logBusyRefusal(meta: MetaDb, upload: BusyUpload, time = Date.now()): void {
  const project = upload.appid === null ? undefined : meta.prepare('SELECT status FROM projects WHERE app_key = ?').get(upload.appid) as { status: number } | undefined
  const appKey = project?.status === ProjectStatus.normal ? upload.appid! : ''
  let lib = (upload.lib ?? '').slice(0, LIB_CHARS)
  meta.transaction(() => {
    const named = meta.prepare('SELECT count(*) FROM ingest_busy_refusals WHERE app_key = ? AND reason = ? AND lib <> \'\'').pluck().get(appKey, upload.reason) as number
    const known = meta.prepare('SELECT 1 FROM ingest_busy_refusals WHERE app_key = ? AND reason = ? AND lib = ?').get(appKey, upload.reason, lib)
    if (lib !== '' && known === undefined && named >= BUSY_LIBS_KEPT) lib = ''
    meta.prepare(`INSERT INTO ingest_busy_refusals (app_key, reason, lib, lib_version, appid, uploads, records, bytes, last_time) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?)
      ON CONFLICT (app_key, reason, lib) DO UPDATE SET uploads = uploads + 1, records = records + excluded.records, bytes = bytes + excluded.bytes,
        last_time = excluded.last_time, lib_version = excluded.lib_version, appid = excluded.appid`)
      .run(appKey, upload.reason, lib, lib === '' ? null : (upload.libVersion?.slice(0, LIB_CHARS) ?? null), upload.appid?.slice(0, APPID_CHARS) ?? null, upload.records, upload.bytes, time)
  })()
}

/** The project's busy refusals and the server-wide ones, or null when there are none. */
export function busyRefusals(meta: MetaDb, appKey: string): BusyRefusals | null {
  const rows = meta.prepare(`SELECT app_key AS appKey, reason, lib, lib_version AS libVersion, appid, uploads, records, bytes, last_time AS lastTime
    FROM ingest_busy_refusals WHERE app_key IN (?, '') ORDER BY last_time DESC, app_key DESC, reason, lib`).all(appKey) as (Omit<BusyRefusal, 'scope'> & { appKey: string })[]
  if (rows.length === 0) return null
  return {
    uploads: rows.reduce((sum, r) => sum + r.uploads, 0),
    bytes: rows.reduce((sum, r) => sum + r.bytes, 0),
    lastTime: Math.max(...rows.map((r) => r.lastTime)),
    refusals: rows.map(({ appKey: key, lib, ...r }) => ({ scope: key === '' ? 'server' : 'project', ...r, lib: lib === '' ? null : lib })),
  }
}

/** Clears the project's busy refusals and the server-wide ones (with the rest of the project's log). */
export function clearBusyRefusals(meta: MetaDb, appKey: string): void {
  meta.prepare(`DELETE FROM ingest_busy_refusals WHERE app_key IN (?, '')`).run(appKey)
}

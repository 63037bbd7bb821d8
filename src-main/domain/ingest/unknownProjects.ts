import type { MetaDb } from '../../store/meta'
import { EXCERPT_CHARS } from './problems'

/**
 * Records naming no known project (an appid with a typo, a deleted project, or no appid at all)
 * have no project's problem log to go to, yet no SDK reads the collector's answer. They are kept
 * here, server-wide, and shown in every project's data quality log. Bounded: at most
 * UNKNOWN_APPIDS_KEPT appids are named; records naming any other add to one `others` row, so a
 * flood of invented appids cannot grow the log.
 */

/** Appids named in the log; later ones are counted together. */
export const UNKNOWN_APPIDS_KEPT = 50
/** Characters of an appid kept (an appid is the SDK's setting, but a record may hold anything). */
export const APPID_CHARS = 100

export interface UnknownAppid {
  /** The appid the records named; null for records naming none (and no `appid` in the address). */
  appid: string | null
  /** Records refused for it, and the uploads they came in. */
  records: number
  uploads: number
  lastTime: number
  /** The SDK that sent the latest of them (`$lib`, `$lib_version`), when it says. */
  lib: string | null
  libVersion: string | null
  /** The latest of them as received, cut to EXCERPT_CHARS characters. */
  record: string
}

export interface UnknownProjects {
  /** Every record refused for naming no known project, the ones counted under `otherRecords` included. */
  records: number
  lastTime: number
  /** The appids, the latest first. */
  appids: UnknownAppid[]
  /** Records of appids beyond the UNKNOWN_APPIDS_KEPT named (counted, not named). */
  otherRecords: number
}

/** A string property of the record's `xcontext`, read without parsing the record (it may be 1 MB). */
function contextString(text: string, name: string): string | null {
  const found = new RegExp(`"\\${name}"\\s*:\\s*"((?:[^"\\\\]|\\\\.){0,100})"`).exec(text.slice(0, 64 * 1024))
  if (!found) return null
  try {
    return JSON.parse(`"${found[1]}"`) as string
  } catch {
    return found[1]
  }
}

/** Adds the records of one upload that named no known project (by the appid they named, null for none). */
export function logUnknownAppids(meta: MetaDb, byAppid: Map<string | null, string[]>, time = Date.now()): void {
  if (byAppid.size === 0) return
  const kept = meta.prepare(`SELECT 1 FROM ingest_unknown_appids WHERE kind = 'appid' AND appid = ?`).pluck()
  const keptCount = meta.prepare(`SELECT count(*) FROM ingest_unknown_appids WHERE kind = 'appid'`).pluck()
  const add = meta.prepare(`INSERT INTO ingest_unknown_appids (kind, appid, uploads, records, last_time, lib, lib_version, record) VALUES (?, ?, 1, ?, ?, ?, ?, ?)
    ON CONFLICT (kind, appid) DO UPDATE SET uploads = uploads + 1, records = records + excluded.records, last_time = excluded.last_time,
      lib = excluded.lib, lib_version = excluded.lib_version, record = excluded.record`)
  meta.transaction(() => {
    let room = UNKNOWN_APPIDS_KEPT - (keptCount.get() as number)
    let others = null as { records: number; text: string } | null
    for (const [appid, texts] of byAppid) {
      const key = (appid ?? '').slice(0, APPID_CHARS)
      const latest = texts[texts.length - 1]
      if (kept.get(key) === undefined) {
        if (room <= 0) {
          others = { records: (others?.records ?? 0) + texts.length, text: latest }
          continue
        }
        room--
      }
      add.run('appid', key, texts.length, time, contextString(latest, '$lib'), contextString(latest, '$lib_version'), latest.slice(0, EXCERPT_CHARS))
    }
    if (others) add.run('others', '', others.records, time, contextString(others.text, '$lib'), contextString(others.text, '$lib_version'), others.text.slice(0, EXCERPT_CHARS))
  })()
}

/** The server-wide log, or null when no record named an unknown project since it was last cleared. */
export function unknownProjects(meta: MetaDb): UnknownProjects | null {
  const rows = meta.prepare(`SELECT kind, appid, uploads, records, last_time AS lastTime, lib, lib_version AS libVersion, record
    FROM ingest_unknown_appids ORDER BY last_time DESC, appid`).all() as (Omit<UnknownAppid, 'appid'> & { kind: string; appid: string })[]
  if (rows.length === 0) return null
  const others = rows.find((r) => r.kind === 'others')
  return {
    records: rows.reduce((sum, r) => sum + r.records, 0),
    lastTime: Math.max(...rows.map((r) => r.lastTime)),
    appids: rows.filter((r) => r.kind === 'appid').map(({ kind: _kind, appid, ...r }) => ({ appid: appid === '' ? null : appid, ...r })),
    otherRecords: others?.records ?? 0,
  }
}

export function clearUnknownProjects(meta: MetaDb): void {
  meta.prepare('DELETE FROM ingest_unknown_appids').run()
}

import type { MetaDb } from '../../store/meta'
import type { Operator } from '../context'
import { alreadyExists, badParam } from '../errors'
import { creatorName } from '../platform/owners'
import type { TagRow, TagStatus } from '../userSets/records'
import { localStamp } from '../time/stamp'
import type { ProjectScope } from '../project/scope'

/**
 * Tag records in the metadata database (migration 4) and their API shape. A tag is a named
 * per-user value: from rules (an ordered list of {value, content}; a user gets the value of the
 * first rule content they match) or from a file (xwho, value). Each computation adds a numbered
 * version (1, 2, ...): a snapshot kept in the warehouse table `tag_<code>`. Codes are `t` + id.
 */

export interface TagVersionView {
  version: number
  userNumber: number
  calculatedTime: string
}

export interface TagView {
  id: number
  code: string
  name: string
  source: 'rule' | 'file'
  status: TagStatus
  failReason: string | null
  createdUser: string
  createdTime: string
  updatedTime: string
  rules: unknown
  versions: TagVersionView[]
}

export function tagByCode(meta: MetaDb, appKey: string, code: string): TagRow | undefined {
  return meta.prepare('SELECT * FROM tags WHERE app_key = ? AND code = ?').get(appKey, code) as TagRow | undefined
}

/** A tag of the project by its path code; unknown is a 400 naming `code`. */
export function existingTag(meta: MetaDb, appKey: string, code: string): TagRow {
  const row = tagByCode(meta, appKey, code)
  if (!row) throw badParam('code', `no tag of this project has the code ${code}`)
  return row
}

export function insertTag(meta: MetaDb, appKey: string, input: { name: string; source: 'rule' | 'file'; rules: string | null; operator: Operator | null; now: number }): TagRow {
  const creator = creatorName(meta, input.operator)
  return meta.transaction(() => {
    if (meta.prepare('SELECT 1 FROM tags WHERE app_key = ? AND name = ?').get(appKey, input.name)) throw alreadyExists(`a tag named ${input.name} already exists`)
    const { lastInsertRowid } = meta
      .prepare(
        `INSERT INTO tags (app_key, code, name, source, rules, status, created_by, created_user, create_time, update_time)
         VALUES (?, ?, ?, ?, ?, 'calculating', ?, ?, ?, ?)`,
      )
      .run(appKey, `pending-${input.now}-${Math.random()}`, input.name, input.source, input.rules, input.operator?.id ?? null, creator, input.now, input.now)
    const id = Number(lastInsertRowid)
    meta.prepare('UPDATE tags SET code = ? WHERE id = ?').run(`t${id}`, id)
    return meta.prepare('SELECT * FROM tags WHERE id = ?').get(id) as TagRow
  })()
}

export function tagView(meta: MetaDb, row: TagRow, scope: ProjectScope): TagView {
  const versions = meta.prepare('SELECT version, user_number, calculated_time FROM tag_versions WHERE tag_id = ? ORDER BY version').all(row.id) as {
    version: number
    user_number: number
    calculated_time: number
  }[]
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    source: row.source,
    status: row.status,
    failReason: row.fail_reason,
    createdUser: row.created_user,
    createdTime: localStamp(row.create_time, scope.timeZone),
    updatedTime: localStamp(row.update_time, scope.timeZone),
    rules: row.rules === null ? null : JSON.parse(row.rules),
    versions: versions.map((v) => ({ version: v.version, userNumber: v.user_number, calculatedTime: localStamp(v.calculated_time, scope.timeZone) })),
  }
}

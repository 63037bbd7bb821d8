import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openMetaDb, schemaVersion } from '../../src-main/store/meta'
import { migrations } from '../../src-main/store/meta/migrations'

const dirs: string[] = []
function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'uba-meta-'))
  dirs.push(dir)
  return join(dir, 'meta.sqlite')
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('metadata store', () => {
  it('opens in WAL mode with foreign keys on, at the latest migration', () => {
    const db = openMetaDb(tempFile())
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1)
    expect(schemaVersion(db)).toBe(migrations[migrations.length - 1].version)
    db.close()
  })

  it('enforces foreign keys', () => {
    const db = openMetaDb(tempFile())
    expect(() => db.prepare("INSERT INTO project_members (app_key, account_id, role_id) VALUES ('nope', 1, 6)").run()).toThrow(/FOREIGN KEY/)
    db.close()
  })

  it('applies each migration once, in order, and only the new ones on a later start', () => {
    const file = tempFile()
    const first = [{ version: 1, name: 'one', sql: 'CREATE TABLE a (x INTEGER)' }]
    openMetaDb(file, first).close()
    const db = openMetaDb(file, [...first, { version: 2, name: 'two', sql: 'CREATE TABLE b (y INTEGER)' }])
    expect(schemaVersion(db)).toBe(2)
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all()
    expect(tables).toEqual(['a', 'b'])
    db.close()
  })

  it('leaves the file at the previous version when a migration fails', () => {
    const file = tempFile()
    openMetaDb(file, [{ version: 1, name: 'one', sql: 'CREATE TABLE a (x INTEGER)' }]).close()
    expect(() =>
      openMetaDb(file, [
        { version: 1, name: 'one', sql: 'CREATE TABLE a (x INTEGER)' },
        { version: 2, name: 'broken', sql: 'CREATE TABLE c (z INTEGER); THIS IS NOT SQL' },
      ]),
    ).toThrow()
    const db = openMetaDb(file, [{ version: 1, name: 'one', sql: 'CREATE TABLE a (x INTEGER)' }])
    expect(schemaVersion(db)).toBe(1)
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'c'").pluck().get()).toBe(0)
    db.close()
  })
})

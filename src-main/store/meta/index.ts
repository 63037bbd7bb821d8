import Database from 'better-sqlite3'
import { migrations, type Migration } from './migrations'

export type MetaDb = Database.Database

/**
 * Opens the metadata database: WAL, foreign keys on, and every pending numbered migration applied
 * in its own transaction, so a failed step leaves the file at the previous version.
 */
export function openMetaDb(file: string, steps: Migration[] = migrations): MetaDb {
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  migrate(db, steps)
  return db
}

export function schemaVersion(db: MetaDb): number {
  return db.pragma('user_version', { simple: true }) as number
}

function migrate(db: MetaDb, steps: Migration[]): void {
  const current = schemaVersion(db)
  const pending = steps.filter((m) => m.version > current).sort((a, b) => a.version - b.version)
  for (const step of pending) {
    db.transaction(() => {
      db.exec(step.sql)
      db.pragma(`user_version = ${step.version}`)
    })()
  }
}

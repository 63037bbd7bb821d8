import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs'

/**
 * The data folder holds the platform token and every project's token in clear (the app and
 * `uba-desk credentials` show them), so what the product creates there is its user's alone:
 * folders 0700, files 0600, whatever the umask. Folders made by an older version are tightened
 * when they are opened. Windows has no such modes (its per-user profile folder does that job).
 */

const POSIX = process.platform !== 'win32'

function tighten(path: string, mode: number): void {
  if (!POSIX) return
  try {
    chmodSync(path, mode)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
}

/** Creates `dir` (and its missing parents) as 0700, and tightens it when it already exists. */
export function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  tighten(dir, 0o700)
}

/** Tightens files the product wrote (or that a library wrote for it) to 0600; missing ones are skipped. */
export function privateFiles(...files: string[]): void {
  for (const file of files) tighten(file, 0o600)
}

/**
 * Creates `file` empty as 0600 when it does not exist, so that a library opening it afterwards
 * (SQLite: its -wal and -shm files take the database file's mode) never has it readable by others.
 */
export function createPrivateFile(file: string): void {
  closeSync(openSync(file, 'a', 0o600))
  tighten(file, 0o600)
}

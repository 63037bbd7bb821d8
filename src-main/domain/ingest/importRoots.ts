import { realpathSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { isAbsolute, resolve, sep } from 'node:path'
import type { DomainContext } from '../context'
import { badParam } from '../errors'
import { getSetting, setSetting } from '../platform/settings'
import { checkedPath } from './request'

/**
 * Imports by `path` (API) read only files under the folders the user allowed: the setting
 * `import.roots` (a JSON list of absolute folders; default the user's home folder and the OS's
 * temp folder) plus the folders given to `serve --import-root`. A project token would otherwise be
 * enough to read any file the process can (/etc/passwd, another app's keys). Links are resolved
 * (realpath) before the check, and the resolved file is what is read. Uploads are not concerned;
 * neither is the command line's own import, which runs as its user.
 */

export const MAX_IMPORT_ROOTS = 50

export interface ImportRoots {
  /** The folders of the setting (its default when never set). */
  roots: string[]
  /** The setting was never changed: the roots are the defaults. */
  defaults: boolean
  /** Folders added for this run with `serve --import-root`. */
  commandLine: string[]
}

export function defaultImportRoots(): string[] {
  return [homedir(), tmpdir()]
}

export function importRoots(ctx: DomainContext): ImportRoots {
  const stored = getSetting(ctx.meta, 'import.roots')
  let roots: string[] | null = null
  if (stored !== undefined) {
    try {
      const parsed: unknown = JSON.parse(stored)
      if (Array.isArray(parsed) && parsed.every((r) => typeof r === 'string')) roots = parsed
    } catch {
      // a damaged value reads as the default
    }
  }
  return { roots: roots ?? defaultImportRoots(), defaults: roots === null, commandLine: ctx.importRoots ?? [] }
}

/** Replaces the setting's folders: absolute paths, at most MAX_IMPORT_ROOTS (an empty list allows none). */
export function setImportRoots(ctx: DomainContext, roots: string[]): ImportRoots {
  if (roots.length > MAX_IMPORT_ROOTS) throw badParam('roots', `roots holds at most ${MAX_IMPORT_ROOTS} folders`)
  const clean: string[] = []
  roots.forEach((root, i) => {
    if (typeof root !== 'string' || root.trim() === '' || !isAbsolute(root.trim()) || root.includes('\u0000')) {
      throw badParam(`roots[${i}]`, `roots[${i}] must be an absolute folder path`)
    }
    const folder = resolve(root.trim())
    if (!clean.includes(folder)) clean.push(folder)
  })
  setSetting(ctx.meta, 'import.roots', JSON.stringify(clean))
  return importRoots(ctx)
}

function real(path: string): string | null {
  try {
    return realpathSync(path)
  } catch {
    return null
  }
}

function inside(file: string, folder: string): boolean {
  return file === folder || file.startsWith(folder.endsWith(sep) ? folder : folder + sep)
}

/**
 * A file the user chose in the desktop app's native open dialog: importable by path for this run,
 * wherever it lies (that choice is the user's permission, as an upload would be). Only the main
 * process calls this, with the dialog's answer; the API has no way to add a file.
 */
export function allowChosenFile(ctx: DomainContext, path: string): string {
  const file = checkedPath(real(path) ?? path)
  ;(ctx.chosenFiles ??= new Set()).add(file)
  return file
}

/**
 * The file an import by `path` may read: under an allowed folder once links are resolved, else a
 * 400 naming path. A path outside them is refused whether a file is there or not.
 */
export function importablePath(ctx: DomainContext, value: unknown): string {
  if (typeof value !== 'string' || value === '' || !isAbsolute(value) || value.includes('\u0000')) return checkedPath(value)
  const { roots, commandLine } = importRoots(ctx)
  const folders = [...roots, ...commandLine].map(real).filter((f): f is string => f !== null)
  const file = real(value) ?? resolve(value)
  if (!ctx.chosenFiles?.has(file) && !folders.some((folder) => inside(file, folder))) {
    throw badParam(
      'path',
      `path ${value} is outside the folders imports may read (${[...roots, ...commandLine].join(', ') || 'none'}): add its folder in Settings (Import folders) or with serve --import-root, or upload the file`,
    )
  }
  return checkedPath(file)
}

import { request, type PlatformAuth } from './http'

/** The folders imports by path may read (platform setting import.roots). */
export interface ImportRoots {
  roots: string[]
  /** The setting was never changed: the roots are the defaults (home and temp folders). */
  defaults: boolean
  /** Folders added for this run with serve --import-root; not editable here. */
  commandLine: string[]
}

const IMPORT_ROOTS = '/uba/manage/enterprise/settings/importRoots'

export function getImportRoots(auth: PlatformAuth): Promise<ImportRoots> {
  return request<ImportRoots>(auth, 'GET', IMPORT_ROOTS)
}

export function setImportRoots(auth: PlatformAuth, roots: string[]): Promise<ImportRoots> {
  return request<ImportRoots>(auth, 'PUT', IMPORT_ROOTS, { roots })
}

import type { Answer } from '../../../src-shared/contract'
import { request, type PlatformAuth } from './http'

/** The folders imports by path may read (platform setting import.roots): `defaults` while never changed, `commandLine` the ones serve --import-root added (not editable here). */
export type ImportRoots = Answer<typeof IMPORT_ROOTS>

const IMPORT_ROOTS = '/uba/manage/enterprise/settings/importRoots' as const

export function getImportRoots(auth: PlatformAuth): Promise<ImportRoots> {
  return request<ImportRoots>(auth, 'GET', IMPORT_ROOTS)
}

export function setImportRoots(auth: PlatformAuth, roots: string[]): Promise<ImportRoots> {
  return request<ImportRoots>(auth, 'PUT', IMPORT_ROOTS, { roots })
}

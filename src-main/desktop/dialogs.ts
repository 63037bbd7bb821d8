import { statSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import type { DomainContext } from '../domain/context'
import { allowChosenFile } from '../domain/ingest/importRoots'
import type { ChosenLocalFile } from '../preload/bridge'

/**
 * The desktop app's native file dialogs, with Electron's `dialog` handed in (the main process
 * passes it bound to the window; the tests pass their own answers). The renderer sends no path:
 * it asks, the user answers, and only that answer is read or written.
 */

/** The part of Electron's `dialog` used here, in its own shapes. */
export interface DialogSeam {
  showOpenDialog(options: { title: string; properties: 'openFile'[]; filters: { name: string; extensions: string[] }[] }): Promise<{ canceled: boolean; filePaths: string[] }>
  showSaveDialog(options: { title: string; defaultPath: string }): Promise<{ canceled: boolean; filePath?: string }>
}

const IMPORT_EXTENSIONS = ['csv', 'tsv', 'tab', 'txt', 'json', 'jsonl', 'ndjson', 'gz', 'parquet', 'xlsx', 'xlsm', 'xls', 'xlsb', 'ods']

/** Exports are written at most this big through the save dialog (what crosses IPC is held in memory). */
export const MAX_SAVED_BYTES = 2 * 1024 ** 3

/**
 * Asks for a file to import; the chosen one becomes importable by path for this run (whatever
 * folder it is in), and its path goes back to the renderer, which starts the import with it.
 */
export async function chooseImportFile(dialogs: DialogSeam, ctx: DomainContext): Promise<ChosenLocalFile | null> {
  const answer = await dialogs.showOpenDialog({
    title: 'Import a file',
    properties: ['openFile'],
    filters: [{ name: 'Data files', extensions: IMPORT_EXTENSIONS }, { name: 'All files', extensions: ['*'] }],
  })
  const chosen = answer.filePaths[0]
  if (answer.canceled || chosen === undefined) return null
  const path = allowChosenFile(ctx, chosen)
  return { path, name: basename(path), size: statSync(path).size }
}

/** A suggested name reduced to a plain file name (no folders, no characters a file system refuses). */
export function plainFileName(name: unknown): string {
  const text = typeof name === 'string' ? basename(name.replace(/\\/g, '/')) : ''
  return text.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '_').replace(/^\.+/, '').slice(0, 200) || 'export'
}

/**
 * Asks where to save an export (suggesting its name in `defaultDir`, the Downloads folder) and
 * writes the bytes there; false when the user cancels. Only bytes are taken from the renderer.
 */
export async function saveExport(dialogs: DialogSeam, name: unknown, data: unknown, defaultDir: string): Promise<boolean> {
  if (!(data instanceof Uint8Array)) throw new Error('an export is sent as bytes')
  if (data.byteLength > MAX_SAVED_BYTES) throw new Error('the export is too large to save this way')
  const answer = await dialogs.showSaveDialog({ title: 'Save export', defaultPath: join(defaultDir, plainFileName(name)) })
  if (answer.canceled || !answer.filePath) return false
  await writeFile(answer.filePath, data)
  return true
}

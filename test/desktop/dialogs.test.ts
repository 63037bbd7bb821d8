import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chooseImportFile, saveExport, type DialogSeam } from '../../src-main/desktop/dialogs'
import { eventually, startTestServer, type TestServer } from '../helpers/server'

/**
 * The main process's side of the desktop app's native dialogs, with Electron's dialog replaced by
 * the user's answers: a chosen file is imported by path wherever it is, and nothing else is.
 */

let s: TestServer
let outside: string
const x = () => ({ xtoken: s.creds.xtoken })

beforeAll(async () => {
  s = await startTestServer()
  outside = mkdtempSync(join(tmpdir(), 'uba-dialogs-'))
  // imports by path may read no folder at all: only what the user chooses
  expect((await s.call('PUT', '/uba/manage/enterprise/settings/importRoots', { headers: x(), body: { roots: [] } })).status).toBe(200)
})
afterAll(async () => {
  await s?.stop()
  rmSync(outside, { recursive: true, force: true })
})

/** A dialog that answers `open` to the open dialog and `save` to the save dialog, and records what it was asked. */
function answering(open: string[] | null, save?: string | null) {
  const asked: unknown[] = []
  const dialogs: DialogSeam = {
    showOpenDialog: async (options) => (asked.push(options), { canceled: open === null, filePaths: open ?? [] }),
    showSaveDialog: async (options) => (asked.push(options), { canceled: save == null, filePath: save ?? undefined }),
  }
  return { dialogs, asked }
}

const importByPath = (path: string) => s.call('POST', '/uba/api/import/jobs', { headers: s.project, body: { path } })

describe('the native open dialog for imports', () => {
  it('makes the chosen file importable by path, and only that file', async () => {
    const chosen = join(outside, 'events.jsonl')
    const other = join(outside, 'other.jsonl')
    const line = `${JSON.stringify({ xwho: 'u1', xwhat: 'go', xwhen: 1717200000000 })}\n`
    writeFileSync(chosen, line)
    writeFileSync(other, line)
    const refused = await importByPath(chosen)
    expect(refused.status).toBe(400)
    expect(refused.body.data).toEqual(['path'])

    const { dialogs, asked } = answering([chosen])
    expect(await chooseImportFile(dialogs, s.app.ctx)).toEqual({ path: chosen, name: 'events.jsonl', size: Buffer.byteLength(line) })
    expect(asked[0]).toMatchObject({ properties: ['openFile'] })

    const started = await importByPath(chosen)
    expect(started.status).toBe(200)
    await eventually(async () => (await s.call('GET', `/uba/api/import/jobs/${started.body.id}`, { headers: s.project })).body.state === 'succeeded')
    // the folder was not opened up: a file next to the chosen one is still refused
    expect((await importByPath(other)).status).toBe(400)
  })

  it('grants nothing when the user cancels, and follows a link to the file it names', async () => {
    const file = join(outside, 'real.csv')
    writeFileSync(file, 'who,what,when\nu1,go,2024-06-01\n')
    const link = join(outside, 'link.csv')
    symlinkSync(file, link)
    expect(await chooseImportFile(answering(null).dialogs, s.app.ctx)).toBeNull()
    expect((await importByPath(file)).status).toBe(400)
    expect((await chooseImportFile(answering([link]).dialogs, s.app.ctx))?.path).toBe(file)
    const preview = await s.call('POST', '/uba/api/import/preview', { headers: s.project, body: { path: link } })
    expect(preview.status).toBe(200)
    expect(preview.body.header).toEqual(['who', 'what', 'when'])
  })
})

describe('the native save dialog for exports', () => {
  it('writes the bytes where the user says, suggesting a plain file name in the Downloads folder', async () => {
    const target = join(outside, 'saved.csv')
    const { dialogs, asked } = answering(null, target)
    expect(await saveExport(dialogs, '../../etc/passwd', new TextEncoder().encode('a,b\n1,2\n'), '/home/me/Downloads')).toBe(true)
    expect(readFileSync(target, 'utf8')).toBe('a,b\n1,2\n')
    expect(asked[0]).toEqual({ title: 'Save export', defaultPath: '/home/me/Downloads/passwd' })
  })

  it('writes nothing when the user cancels, and takes nothing but bytes', async () => {
    const target = join(outside, 'never.csv')
    expect(await saveExport(answering(null, null).dialogs, 'x.csv', new Uint8Array([1]), outside)).toBe(false)
    expect(existsSync(target)).toBe(false)
    await expect(saveExport(answering(null, target).dialogs, 'x.csv', 'text', outside)).rejects.toThrow('an export is sent as bytes')
    expect(existsSync(target)).toBe(false)
  })
})

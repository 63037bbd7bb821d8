import { openAsBlob } from 'node:fs'
import { basename, resolve } from 'node:path'
import { openContext } from './app'
import { cancelJob, getJob, startImportJob, type JobView } from './domain/ingest/jobs'
import { checkedPath, importSpecOf, type ImportFields } from './domain/ingest/request'
import { servingServer } from './serverFile'

/**
 * `uba-desk import --project KEY FILE...`: imports files one after the other with a progress bar.
 * Through the running server when server.json names a live one (its DuckDB files are locked by
 * it), else by opening the data folder here.
 */

export interface ImportCommand {
  dataDir: string
  appKey: string
  files: string[]
  fields: ImportFields
}

function bar(job: JobView): string {
  const width = 30
  const filled = Math.round((job.percent / 100) * width)
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${job.percent.toFixed(0).padStart(3)}% ${job.phase ?? job.state}`
}

/** Redraws the progress line of a job (one line per change when stdout is not a terminal). */
export function draw(job: JobView, last: { text: string }): void {
  const text = `${job.source}: ${bar(job)}`
  if (text === last.text) return
  last.text = text
  if (process.stdout.isTTY) process.stdout.write(`\r${text}\x1b[K`)
  else console.log(text)
}

function summary(job: JobView): string {
  const r = job.result
  const lines = [
    job.state === 'succeeded'
      ? `${job.source}: imported ${r?.eventsWritten ?? 0} events and ${r?.profilesChanged ?? 0} profile changes from ${job.rowsRead} records; ${job.rowsRejected} rejected`
      : `${job.source}: ${job.state}: ${job.error ?? ''}`,
  ]
  for (const p of job.rejected.slice(0, 5)) lines.push(`  row ${p.row}: ${p.property} ${p.reason}${p.value ? ` (${p.value})` : ''}`)
  if (job.rowsRejected > 5) lines.push(`  ... ${job.rowsRejected - 5} more rejected records`)
  return lines.join('\n')
}

/** The URL of the live server that serves this data folder, or null. */
export async function liveServer(dataDir: string): Promise<string | null> {
  return (await servingServer(dataDir))?.url ?? null
}

async function viaServer(url: string, token: string, cmd: ImportCommand, file: string): Promise<JobView> {
  const headers = { appKey: cmd.appKey, token, 'content-type': 'application/json' }
  let started = await fetch(`${url}/uba/api/import/jobs`, { method: 'POST', headers, body: JSON.stringify({ ...cmd.fields, path: file }) })
  let body = (await started.json()) as JobView & { msg?: string; data?: unknown }
  if (started.status === 400 && JSON.stringify(body.data) === '["path"]' && /outside the folders/.test(body.msg ?? '')) {
    // the server reads by path only under its import folders; this user may read the file, so it is sent
    const form = new FormData()
    for (const [key, value] of Object.entries(cmd.fields)) if (value !== undefined) form.append(key, typeof value === 'string' ? value : JSON.stringify(value))
    form.append('file', await openAsBlob(file), basename(file))
    started = await fetch(`${url}/uba/api/import/jobs`, { method: 'POST', headers: { appKey: cmd.appKey, token }, body: form })
    body = (await started.json()) as JobView & { msg?: string }
  }
  if (started.status !== 200) throw new Error(body.msg ?? `the server answered ${started.status}`)
  const last = { text: '' }
  for (;;) {
    const job = (await (await fetch(`${url}/uba/api/import/jobs/${body.id}`, { headers })).json()) as JobView
    draw(job, last)
    if (!['queued', 'running'].includes(job.state)) return job
    await new Promise((r) => setTimeout(r, 250))
  }
}

export async function importCommand(cmd: ImportCommand): Promise<number> {
  if (cmd.files.length === 0) throw new Error('name at least one file to import')
  const url = await liveServer(cmd.dataDir)
  const ctx = openContext({ dataDir: cmd.dataDir }, (err) => console.error(err))
  let failed = 0
  try {
    const project = ctx.meta.prepare('SELECT token, time_zone FROM projects WHERE app_key = ? AND status = 1').get(cmd.appKey) as { token: string; time_zone: string } | undefined
    if (!project) throw new Error(`no project ${cmd.appKey} in ${cmd.dataDir}`)
    if (url) console.log(`using the running server at ${url}`)
    for (const name of cmd.files) {
      const file = checkedPath(resolve(name))
      let job: JobView
      if (url) job = await viaServer(url, project.token, cmd, file)
      else {
        const scope = { appKey: cmd.appKey, timeZone: project.time_zone }
        const started = startImportJob(ctx, scope, importSpecOf(cmd.fields, file), null)
        const onSignal = () => cancelJob(ctx, cmd.appKey, started.id, null)
        process.once('SIGINT', onSignal)
        const last = { text: '' }
        do {
          await new Promise((r) => setTimeout(r, 250))
          job = getJob(ctx, cmd.appKey, started.id)
          draw(job, last)
        } while (job.state === 'queued' || job.state === 'running')
        process.off('SIGINT', onSignal)
      }
      if (process.stdout.isTTY) process.stdout.write('\n')
      console.log(summary(job))
      if (job.state !== 'succeeded') failed++
    }
  } finally {
    await ctx.background.idle()
    await ctx.warehouse.close()
    ctx.meta.close()
  }
  return failed === 0 ? 0 : 1
}

import { openContext } from './app'
import { draw, liveServer } from './cliImport'
import type { DomainContext } from './domain/context'
import { cancelJob, getJob, type JobView } from './domain/ingest/jobs'
import { startSampleJob, type SampleRequest } from './domain/ingest/sample'

/**
 * `uba-desk sample --project KEY [--users N] [--days N] [--seed S] [--end-date yyyy-MM-dd]`:
 * loads the sample e-commerce data into an empty project with a progress bar. Through the running
 * server when one holds the data folder, else by opening the data folder here.
 */

export interface SampleCommand {
  dataDir: string
  appKey: string
  users?: string
  days?: string
  seed?: string
  endDate?: string
}

function whole(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined
  const n = Number(text.replace(/_/g, ''))
  if (!/^[0-9_]+$/.test(text) || !Number.isSafeInteger(n)) throw new Error(`--${flag} must be a whole number, not ${text}`)
  return n
}

/** Polls a job until it ends, keeping the bar from moving back when a new statement starts. */
async function follow(poll: () => Promise<JobView> | JobView): Promise<JobView> {
  const last = { text: '' }
  let shown = 0
  for (;;) {
    await new Promise((r) => setTimeout(r, 250))
    const job = await poll()
    shown = Math.max(shown, job.percent)
    draw({ ...job, percent: shown }, last)
    if (job.state !== 'queued' && job.state !== 'running') return job
  }
}

async function viaServer(url: string, token: string, appKey: string, request: SampleRequest): Promise<JobView> {
  const headers = { appKey, token, 'content-type': 'application/json' }
  const started = await fetch(`${url}/uba/api/import/sample`, { method: 'POST', headers, body: JSON.stringify(request) })
  const body = (await started.json()) as JobView & { msg?: string }
  if (started.status !== 200) throw new Error(body.msg ?? `the server answered ${started.status}`)
  return follow(async () => (await fetch(`${url}/uba/api/import/jobs/${body.id}`, { headers })).json() as Promise<JobView>)
}

async function here(ctx: DomainContext, scope: { appKey: string; timeZone: string }, request: SampleRequest): Promise<JobView> {
  const started = await startSampleJob(ctx, scope, request, null)
  const onSignal = () => cancelJob(ctx, scope.appKey, started.id, null)
  process.once('SIGINT', onSignal)
  try {
    return await follow(() => getJob(ctx, scope.appKey, started.id))
  } finally {
    process.off('SIGINT', onSignal)
  }
}

function summary(job: JobView): string {
  if (job.state !== 'succeeded') return `${job.source}: ${job.state}: ${job.error ?? ''}`
  const seconds = ((job.endTime ?? 0) - (job.startTime ?? 0)) / 1000
  const events = job.result?.eventsWritten ?? 0
  const n = new Intl.NumberFormat('en-US')
  return `${job.source}: ${n.format(events)} events and ${n.format(job.result?.profilesChanged ?? 0)} user profiles in ${seconds.toFixed(1)} s (${n.format(Math.round(events / Math.max(seconds, 0.001)))} events/s)`
}

export async function sampleCommand(cmd: SampleCommand): Promise<number> {
  const request: SampleRequest = { users: whole(cmd.users, 'users'), days: whole(cmd.days, 'days'), seed: whole(cmd.seed, 'seed'), endDate: cmd.endDate }
  const url = await liveServer(cmd.dataDir)
  const ctx = openContext({ dataDir: cmd.dataDir }, (err) => console.error(err))
  try {
    const project = ctx.meta.prepare('SELECT token, time_zone FROM projects WHERE app_key = ? AND status = 1').get(cmd.appKey) as { token: string; time_zone: string } | undefined
    if (!project) throw new Error(`no project ${cmd.appKey} in ${cmd.dataDir}`)
    if (url) console.log(`using the running server at ${url}`)
    const job = url ? await viaServer(url, project.token, cmd.appKey, request) : await here(ctx, { appKey: cmd.appKey, timeZone: project.time_zone }, request)
    if (process.stdout.isTTY) process.stdout.write('\n')
    console.log(summary(job))
    return job.state === 'succeeded' ? 0 : 1
  } finally {
    await ctx.background.idle()
    await ctx.warehouse.close()
    ctx.meta.close()
  }
}

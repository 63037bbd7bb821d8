// Sample data generation: events per second for the default size and for a million users, next to
// DuckDB's own copy of the same event rows into a new table of the same database (the cost of
// writing that many wide rows at all, which bounds what a generator can reach on this machine).
// CPU seconds (every thread of the process) and the peak RSS sampled during the job are printed
// too: on a loaded machine the wall-clock time says little.
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { startApp } from '../src-main/app'
import { getJob } from '../src-main/domain/ingest/jobs'
import { startSampleJob } from '../src-main/domain/ingest/sample'
import { createProject } from '../src-main/domain/platform/projects'
import { DuckDBWarehouse } from '../src-main/warehouse/duckdb/connection'

const SIZES = (process.env.BENCH_SAMPLE_USERS ?? '20000,1000000').split(',').map(Number)

interface Step {
  sql: string
  count: number
  wall: number
  cpu: number
}

/**
 * BENCH_SAMPLE_STEPS=1: wall and CPU seconds of every statement the job runs, by the statement's
 * first words (the event writes of all parts summed), to see where the time goes. The CPU is the
 * process's over the statement (nothing else runs meanwhile).
 */
function timeStatements(): { steps: Map<string, Step>; stop(): void } {
  const steps = new Map<string, Step>()
  const run = DuckDBWarehouse.prototype.run
  DuckDBWarehouse.prototype.run = async function (this: DuckDBWarehouse, ...args: Parameters<DuckDBWarehouse['run']>) {
    const [cpu, t] = [process.cpuUsage(), performance.now()]
    try {
      return await run.apply(this, args)
    } finally {
      const used = process.cpuUsage(cpu)
      const sql = args[0].replace(/\s+/g, ' ').trim().slice(0, 60)
      const step = steps.get(sql) ?? { sql, count: 0, wall: 0, cpu: 0 }
      steps.set(sql, { sql, count: step.count + 1, wall: step.wall + (performance.now() - t) / 1000, cpu: step.cpu + (used.user + used.system) / 1e6 })
    }
  }
  return { steps, stop: () => (DuckDBWarehouse.prototype.run = run) }
}

export async function benchSample(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'uba-bench-sample-'))
  try {
    const app = await startApp({ dataDir: join(dir, 'data'), port: 0, threads: 2, memoryLimit: '8GB' })
    await app.ctx.background.idle()
    for (const users of SIZES) {
      const scope = { appKey: `sample${users}`, timeZone: 'UTC' }
      createProject(app.ctx, { appKey: scope.appKey, name: scope.appKey, timeZone: scope.timeZone }, null)
      await app.ctx.background.idle()
      const timing = process.env.BENCH_SAMPLE_STEPS ? timeStatements() : null
      const cpu = process.cpuUsage()
      let peak = 0
      const started = await startSampleJob(app.ctx, scope, { users, days: 90, seed: 1 }, null)
      let job = getJob(app.ctx, scope.appKey, started.id)
      while (job.state === 'queued' || job.state === 'running') {
        await new Promise((r) => setTimeout(r, 100))
        peak = Math.max(peak, process.memoryUsage.rss())
        job = getJob(app.ctx, scope.appKey, started.id)
      }
      const used = process.cpuUsage(cpu)
      timing?.stop()
      if (job.state !== 'succeeded' || !job.result) throw new Error(`sample of ${users} users: ${job.state} ${job.error}`)
      const events = job.result.eventsWritten
      const seconds = ((job.endTime ?? 0) - (job.startTime ?? 0)) / 1000
      const copyCpu = process.cpuUsage()
      const copy = await app.ctx.warehouse.withConnection(scope.appKey, scope.timeZone, async (conn) => {
        const t = performance.now()
        await conn.run('CREATE TABLE bench_copy AS SELECT * FROM event_vd')
        const s = (performance.now() - t) / 1000
        await conn.run('DROP TABLE bench_copy')
        return s
      })
      const copyUsed = process.cpuUsage(copyCpu)
      const [cpuOurs, cpuCopy] = [(used.user + used.system) / 1e6, (copyUsed.user + copyUsed.system) / 1e6]
      console.log(
        `sample ${String(users).padStart(7)} users x 90 days ${(events / 1e6).toFixed(2).padStart(6)}M events   ours ${seconds.toFixed(2)} s (${(events / seconds / 1e6).toFixed(2)} M events/s, CPU ${cpuOurs.toFixed(0)} s, peak RSS ${(peak / 2 ** 30).toFixed(1)} GiB)   DuckDB copy of the rows ${copy.toFixed(2)} s (${(events / copy / 1e6).toFixed(2)} M rows/s, CPU ${cpuCopy.toFixed(0)} s)   ratio ${(copy / seconds).toFixed(2)} (CPU ${(cpuCopy / cpuOurs).toFixed(2)}, load ${loadavg()[0].toFixed(1)})`,
      )
      for (const step of [...(timing?.steps.values() ?? [])].filter((x) => x.wall >= 0.05)) {
        console.log(`  ${step.wall.toFixed(2).padStart(8)} s wall ${step.cpu.toFixed(2).padStart(8)} s CPU  ${String(step.count).padStart(3)} x ${step.sql}`)
      }
    }
    await app.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

// `npm run bench`: figures for the foundation, printed, never asserted (timings here are noisy).
// Later issues add their own sections (imports, analyses, exports).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startApp } from '../src-main/app'
import { benchAlias } from './alias'
import { benchAnalysis } from './analysis'
import { benchClickHouseAlone } from './clickhouse'
import { benchCollector } from './collector'
import { benchDashboard } from './dashboard'
import { benchExport } from './export'
import { benchImport } from './import'
import { benchSample } from './sample'

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

/** Sends `total` requests, `concurrency` at a time, and reports latency percentiles and rate. */
async function load(label: string, total: number, concurrency: number, send: () => Promise<Response>): Promise<void> {
  const times: number[] = []
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < total) {
        const t = performance.now()
        const res = await send()
        await res.arrayBuffer()
        if (res.status !== 200) throw new Error(`${label}: status ${res.status}`)
        times.push(performance.now() - t)
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  times.sort((a, b) => a - b)
  console.log(
    `${label.padEnd(34)} ${String(total).padStart(6)} req  ${(total / seconds).toFixed(0).padStart(6)} req/s  p50 ${percentile(times, 50).toFixed(2)} ms  p95 ${percentile(times, 95).toFixed(2)} ms`,
  )
}

/** BENCH_ONLY=import (or analysis, clickhouse, alias, sample, export, collector, dashboard) runs that section alone, e.g. while tuning it. */
const sections = { import: benchImport, analysis: benchAnalysis, clickhouse: benchClickHouseAlone, alias: benchAlias, sample: benchSample, export: benchExport, collector: benchCollector, dashboard: benchDashboard }
const only = process.env.BENCH_ONLY
if (only !== undefined) {
  if (!(only in sections)) throw new Error(`BENCH_ONLY is one of ${Object.keys(sections).join(', ')}`)
  await sections[only as keyof typeof sections]()
  process.exit(0)
}

const dataDir = mkdtempSync(join(tmpdir(), 'uba-bench-'))
try {
  const t0 = performance.now()
  const app = await startApp({ dataDir, port: 0 })
  await app.ctx.background.idle()
  const coldStart = performance.now() - t0
  const t1 = performance.now()
  await app.close()
  const shutdown = performance.now() - t1
  const t2 = performance.now()
  const warm = await startApp({ dataDir, port: 0 })
  const warmStart = performance.now() - t2
  console.log(`cold start (new data folder, project created)  ${coldStart.toFixed(0)} ms`)
  console.log(`warm start (existing data folder)              ${warmStart.toFixed(0)} ms   ratio cold/warm ${(coldStart / warmStart).toFixed(1)}`)
  console.log(`shutdown (both databases closed)               ${shutdown.toFixed(0)} ms`)

  const creds = warm.credentials()
  const project = { appKey: creds.projects[0].appKey, token: creds.projects[0].token }
  await load('GET /health', 5000, 16, () => fetch(`${warm.url}/health`))
  await load('GET projects (xtoken, SQLite)', 5000, 16, () => fetch(`${warm.url}/uba/manage/enterprise/projects`, { headers: { xtoken: creds.xtoken } }))
  await load('GET /uba/api/project (DuckDB)', 2000, 8, () => fetch(`${warm.url}/uba/api/project`, { headers: project }))
  await load('401 (wrong token)', 5000, 16, () =>
    fetch(`${warm.url}/uba/api/project`, { headers: { ...project, token: 'x' } }).then((r) => new Response(r.body, { status: r.status === 401 ? 200 : 500 })),
  )
  await warm.close()
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}

await benchImport()
await benchAnalysis()
await benchAlias()
await benchSample()
await benchExport()
await benchCollector()
await benchDashboard()

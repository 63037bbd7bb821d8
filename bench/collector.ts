// The local collector: records per second for SDK-like uploads of 50 and of 1,000 records, posted
// over HTTP to a running server one after another (as one SDK sends: the next batch once the
// previous one is answered), each batch a new user's events with the JS SDK's presets plus a few
// properties. BENCH_COLLECTOR_UPLOADS sets how many uploads of each size are timed (100,10).
// Then /health's latency while a 60 MB upload of 10,000 records (the caps) is decoded and stored.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { startApp } from '../src-main/app'

const SIZES = [50, 1000]
const UPLOADS = (process.env.BENCH_COLLECTOR_UPLOADS ?? '100,10').split(',').map(Number)
const EVENTS = ['$pageview', 'click', 'add_cart', 'pay']

/** One upload as the JS SDK sends it: `n` records of user `user`, a second apart. */
function upload(appKey: string, user: number, n: number): string {
  const start = Date.UTC(2024, 5, 1) + user * 60_000
  return JSON.stringify(
    Array.from({ length: n }, (_, i) => ({
      appid: appKey,
      xwho: `u${user}`,
      xwhat: EVENTS[i % EVENTS.length],
      xwhen: start + i * 1000,
      xcontext: {
        $lib: 'JS',
        $lib_version: '4.5.1',
        $platform: 'JS',
        $is_login: user % 2 === 0,
        $debug: 0,
        $url: `https://shop.example/p/${i % 37}`,
        $title: `Product ${i % 37}`,
        price: (i % 37) * 1.5,
        category: ['books', 'toys', 'garden'][i % 3],
        in_stock: i % 5 !== 0,
      },
    })),
  )
}

/** 10,000 records of ~6 KB: a 60 MB upload, just under the caps (gzipped: the body limit is 10 MB). */
function bigUpload(appKey: string): Buffer {
  const filler = 'x'.repeat(5800)
  return gzipSync(JSON.stringify(Array.from({ length: 10_000 }, (_, i) => ({
    appid: appKey,
    xwho: `big${i % 500}`,
    xwhat: 'view',
    xwhen: Date.UTC(2024, 6, 1) + i * 1000,
    xcontext: { $lib: 'JS', $lib_version: '4.5.1', $platform: 'JS', $is_login: false, $debug: 0, note: `${i} ${filler}`, price: i * 0.5 },
  }))))
}

/** Polls /health every 10 ms while `work` runs: the latencies seen, sorted. */
async function healthWhile(url: string, work: Promise<unknown>): Promise<number[]> {
  const latencies: number[] = []
  let done = false
  const polling = (async () => {
    while (!done) {
      const t = performance.now()
      await (await fetch(`${url}/health`)).arrayBuffer()
      latencies.push(performance.now() - t)
      await new Promise((r) => setTimeout(r, 10))
    }
  })()
  await work.finally(() => (done = true))
  await polling
  return latencies.sort((a, b) => a - b)
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]

export async function benchCollector(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'uba-bench-collector-'))
  try {
    const app = await startApp({ dataDir: join(dir, 'data'), port: 0 })
    await app.ctx.background.idle()
    const creds = app.credentials()
    const appKey = creds.projects[0].appKey
    const project = { appKey, token: creds.projects[0].token }
    const x = { xtoken: creds.xtoken, 'content-type': 'application/json' }
    await fetch(`${app.url}/uba/manage/enterprise/projects/${appKey}/stream`, { method: 'POST', headers: x, body: JSON.stringify({ streamSwitch: true }) })
    await app.ctx.background.idle()
    let user = 0
    let sent = 0
    // built once, before anything is timed: its garbage is not the server's
    const body = bigUpload(appKey)
    for (const [k, size] of SIZES.entries()) {
      // one upload first, not counted: the columns and plan entries appear with it
      const bodies = Array.from({ length: UPLOADS[k] + 1 }, () => upload(appKey, user++, size))
      const times: number[] = []
      let started = 0
      for (const [i, body] of bodies.entries()) {
        if (i === 1) started = performance.now()
        const t = performance.now()
        const res = await fetch(`${app.url}/up?appid=${appKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        const answer = (await res.json()) as { stored?: number }
        if (res.status !== 200 || answer.stored !== size) throw new Error(`upload of ${size}: status ${res.status} ${JSON.stringify(answer)}`)
        if (i > 0) times.push(performance.now() - t)
      }
      const seconds = (performance.now() - started) / 1000
      const records = (bodies.length - 1) * size
      sent += bodies.length * size
      times.sort((a, b) => a - b)
      console.log(
        `collector uploads of ${String(size).padStart(4)} records  ${String(bodies.length - 1).padStart(4)} uploads  ${(records / seconds).toFixed(0).padStart(6)} records/s  per upload p50 ${percentile(times, 50).toFixed(1)} ms  p95 ${percentile(times, 95).toFixed(1)} ms`,
      )
    }
    for (let round = 0; round < 3; round++) {
      const t = performance.now()
      const send = fetch(`${app.url}/up?appid=${appKey}`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body }).then(async (res) => {
        const answer = (await res.json()) as { stored?: number }
        if (answer.stored !== 10_000) throw new Error(`60 MB upload: status ${res.status} ${JSON.stringify(answer).slice(0, 300)}`)
      })
      // the same records each time: stored again (the collector does not deduplicate)
      const latencies = await healthWhile(app.url, send)
      sent += 10_000
      console.log(
        `collector upload of 60 MB (10,000 records, ${(body.length / 1024 / 1024).toFixed(1)} MB gzipped) in ${(performance.now() - t).toFixed(0)} ms: /health during it p50 ${percentile(latencies, 50).toFixed(1)} ms  p95 ${percentile(latencies, 95).toFixed(1)} ms  max ${latencies[latencies.length - 1].toFixed(1)} ms (${latencies.length} polls)`,
      )
    }
    // every record sent is stored, once
    const res = await fetch(`${app.url}/uba/api/sql/query`, { method: 'POST', headers: { ...project, 'content-type': 'application/json' }, body: JSON.stringify({ sql: 'SELECT count(*) AS n FROM event_vd', format: 'json' }) })
    const [{ n }] = (await res.json()) as { n: number }[]
    if (n !== sent) throw new Error(`collector: ${sent} records sent, ${n} stored`)
    await app.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

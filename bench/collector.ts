// The local collector: records per second for SDK-like uploads of 50 and of 1,000 records, posted
// over HTTP to a running server one after another (as one SDK sends: the next batch once the
// previous one is answered), each batch a new user's events with the JS SDK's presets plus a few
// properties. BENCH_COLLECTOR_UPLOADS sets how many uploads of each size are timed (100,10).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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
    // every record sent is stored, once
    const res = await fetch(`${app.url}/uba/api/sql/query`, { method: 'POST', headers: { ...project, 'content-type': 'application/json' }, body: JSON.stringify({ sql: 'SELECT count(*) AS n FROM event_vd', format: 'json' }) })
    const [{ n }] = (await res.json()) as { n: number }[]
    if (n !== sent) throw new Error(`collector: ${sent} records sent, ${n} stored`)
    await app.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

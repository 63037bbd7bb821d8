// Issue 23: the funnel's path following on worker threads (funnelThreads.ts). The same 4-step funnel
// on the bench project with 1 thread and with 2 (the context's analysisThreads), alternating, and the
// latency of /health polled back to back while each funnel runs (goal: at most 50 ms). Medians of 5
// warm runs with their spread (min-max): on a shared machine one run says little.
import type { RunningApp } from '../src-main/app'
import { usage, type Usage } from './usage'

type Post = (path: string, body: object, dated?: boolean) => () => Promise<void>

/** BENCH_THREADS_RUNS: fewer on a loaded machine (a 40M funnel takes seconds of CPU a run). */
const RUNS = Number(process.env.BENCH_THREADS_RUNS ?? 5)

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const spread = (xs: number[]) => `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}`

/** Runs `work` while /health is asked back to back; resolves to the work's ms, CPU and RSS peak (usage.ts) and every /health latency. */
async function withHealthPolls(app: RunningApp, work: () => Promise<void>): Promise<Usage & { health: number[] }> {
  const health: number[] = []
  let done = false
  const polling = (async () => {
    while (!done) {
      const t = performance.now()
      const res = await fetch(`${app.url}/health`)
      await res.arrayBuffer()
      health.push(performance.now() - t)
    }
  })()
  const used = await usage(work).finally(() => (done = true))
  await polling
  return { ...used, health }
}

export async function benchFunnelThreads(app: RunningApp, post: Post, only?: string): Promise<void> {
  const labels = ['funnel, 1 thread', 'funnel, 2 threads']
  // BENCH_CASES=compare runs these too: the compare ratio's neighbours
  if (only && only !== 'compare' && !labels.some((l) => l.includes(only))) return
  const funnel = post('/uba/api/funnels/analyze', { steps: ['view', 'cart', 'checkout', 'pay'].map((e) => ({ expression: `event.${e}` })), convertTime: 7, convertTimeUnit: 'DAY' })
  const times = new Map<number, number[]>([[1, []], [2, []]])
  const health = new Map<number, number[]>([[1, []], [2, []]])
  const cpu = new Map<number, number[]>([[1, []], [2, []]])
  const rss = new Map<number, number>([[1, 0], [2, 0]])
  const chosen = app.ctx.analysisThreads
  try {
    for (const threads of [1, 2]) {
      app.ctx.analysisThreads = threads
      await funnel() // warm: the threads start
    }
    for (let i = 0; i < RUNS; i++) {
      for (const threads of [1, 2]) {
        app.ctx.analysisThreads = threads
        const run = await withHealthPolls(app, funnel)
        times.get(threads)!.push(run.ms)
        health.get(threads)!.push(...run.health)
        cpu.get(threads)!.push(run.cpu)
        rss.set(threads, Math.max(rss.get(threads)!, run.rssMb))
      }
    }
  } finally {
    app.ctx.analysisThreads = chosen
  }
  for (const threads of [1, 2]) {
    const ms = times.get(threads)!
    const polls = health.get(threads)!.sort((a, b) => a - b)
    const p95 = polls[Math.min(polls.length - 1, Math.floor(polls.length * 0.95))]
    console.log(
      `${labels[threads - 1].padEnd(34)} ${median(ms).toFixed(0).padStart(6)} ms (spread ${spread(ms)} ms, CPU ${(median(cpu.get(threads)!) / 1000).toFixed(1)} s, RSS peak ${rss.get(threads)!.toFixed(0)} MB)   /health during it: ${polls.length} polls, p50 ${median(polls).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${polls[polls.length - 1].toFixed(1)} ms (goal <= 50)`,
    )
  }
  console.log(`funnel, 2 threads over 1              speed-up ${(median(times.get(1)!) / median(times.get(2)!)).toFixed(2)}x`)
}

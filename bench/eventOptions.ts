// Issue 20's options next to the same analysis without them, on the bench project (bench/analysis.ts):
// formula, and compare, whose compared range (the 30 days before the last 30) holds as many events.
// The target is a ratio of at most 1.5. Each figure is the median of 3 warm runs, as wall time and as
// the CPU time of this process (the server and DuckDB run in it): on a shared machine the CPU ratio
// is the steadier one.

type Post = (path: string, body: object, dated?: boolean) => () => Promise<void>

/** Median wall and CPU milliseconds of 3 runs after a warm one. */
async function measure(run: () => Promise<void>): Promise<{ wall: number; cpu: number }> {
  await run()
  const runs: { wall: number; cpu: number }[] = []
  for (let i = 0; i < 3; i++) {
    const t = performance.now()
    const c = process.cpuUsage()
    await run()
    const used = process.cpuUsage(c)
    runs.push({ wall: performance.now() - t, cpu: (used.user + used.system) / 1000 })
  }
  const median = (k: 'wall' | 'cpu') => runs.map((r) => r[k]).sort((a, b) => a - b)[1]
  return { wall: median('wall'), cpu: median('cpu') }
}

const LAST30 = { fromDate: '2024-03-31', toDate: '2024-04-29' }

export async function benchEventOptions(post: Post, only?: string): Promise<void> {
  const measures = [{ expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' }, { expression: 'event.pay', aggregator: 'TRIGGER_USER_COUNT' }]
  const events = { measures, byFields: [{ expression: 'event.view.$platform' }], ...LAST30 }
  const funnel = { steps: ['view', 'cart', 'checkout', 'pay'].map((e) => ({ expression: `event.${e}` })), convertTime: 7, convertTimeUnit: 'DAY', ...LAST30 }
  const pairs = [
    { label: 'events, formula A/B', path: '/uba/api/events/analyze', plain: events, with: { ...events, formula: 'A/B' } },
    { label: 'events, compare previous', path: '/uba/api/events/analyze', plain: events, with: { ...events, compare: 'previous' } },
    { label: 'events, formula + compare', path: '/uba/api/events/analyze', plain: events, with: { ...events, formula: 'A/B', compare: 'previous' } },
    { label: 'funnel, compare previous', path: '/uba/api/funnels/analyze', plain: funnel, with: { ...funnel, compare: 'previous' } },
  ]
  for (const pair of pairs.filter((p) => !only || p.label.includes(only))) {
    const without = await measure(post(pair.path, pair.plain))
    const withIt = await measure(post(pair.path, pair.with))
    console.log(
      `${pair.label.padEnd(34)} ${withIt.wall.toFixed(0).padStart(6)} ms, without ${without.wall.toFixed(0)} ms, ratio ${(withIt.wall / without.wall).toFixed(2)}; CPU ratio ${(withIt.cpu / without.cpu).toFixed(2)} (target <= 1.5)`,
    )
  }
}

// How the main analyses scale with the events (issue 23: 1M, 10M, 40M): at each size the product
// through HTTP and the hand-written DuckDB query, median of 3 warm runs each, with the process's CPU
// and its RSS sampled during the runs, printed as one table; then each analysis's growth from size to
// size. At the largest size the funnel runs with 1 and 2 threads while /health is polled.
// Each size's project is opened in turn (10M and up from bench/.cache or BENCH_CACHE, built the first time).
// On a loaded machine: BENCH_SCALE_RUNS=1 measures one run after the warm one, BENCH_SCALE_HAND=0 leaves the
// hand-written queries out (at 40M its funnel takes a minute a run), BENCH_SCALE_THREADS=0 the 1-vs-2 threads.
import { openAnalysisData, type AnalysisData } from './analysisData'
import { benchFunnelThreads } from './funnelThreads'
import { loadAverage, medianUsage, type Usage } from './usage'

type Post = (path: string, body: object, dated?: boolean) => () => Promise<void>

const steps = ['view', 'cart', 'checkout', 'pay'].map((e) => ({ expression: `event.${e}` }))

/** The analyses compared, each with its hand-written counterpart and issue 23's goal at 40M events. */
const CASES: { label: string; goal: number; body: (post: Post) => () => Promise<void>; hand: keyof AnalysisData['hand'] }[] = [
  { label: 'funnel, 4 steps, 7-day window', goal: 3000, body: (post) => post('/uba/api/funnels/analyze', { steps, convertTime: 7, convertTimeUnit: 'DAY' }), hand: 'funnels' },
  {
    label: 'retention, 30 days',
    goal: 1500,
    body: (post) => post('/uba/api/retentions/analyze', { firstEvent: { expression: 'event.view' }, secondEvent: { expression: 'event.pay' }, byFieldIndex: -1, duration: 30, unit: 'DAY' }),
    hand: 'retention',
  },
  {
    label: 'event analysis, by $platform',
    goal: 1500,
    body: (post) =>
      post('/uba/api/events/analyze', {
        measures: [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }, { expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' }],
        byFields: [{ expression: 'event.view.$platform' }],
      }),
    hand: 'events',
  },
  {
    label: 'distribution of view counts',
    goal: 1500,
    body: (post) => post('/uba/api/distributions/analyze', { measure: { expression: 'event.view', aggregator: 'TOTAL_COUNT' }, unit: '' }),
    hand: 'distribution',
  },
]

const line = (cells: string[]) => `| ${cells.join(' | ')} |`
const mb = (u: Usage) => u.rssMb.toFixed(0)
const RUNS = Number(process.env.BENCH_SCALE_RUNS ?? 3)
const HAND = process.env.BENCH_SCALE_HAND !== '0'

export async function benchScale(sizes: number[], poster: (data: AnalysisData) => Post): Promise<void> {
  // by analysis, then size
  const rows = CASES.map((): string[] => [])
  const product = CASES.map((): Usage[] => [])
  const largest = Math.max(...sizes)
  for (const events of sizes) {
    const data = await openAnalysisData(events)
    try {
      console.log(`analysis data: ${events / 1e6}M events, ${data.users / 1000}k users, 60 days, ${data.origin}; RSS ${(process.memoryUsage.rss() / 2 ** 20).toFixed(0)} MB; load ${loadAverage()}`)
      const post = poster(data)
      // the product's runs first, then the hand-written ones: the RSS sampled during the product's
      // runs holds no pages the hand-written queries' database read
      const ours: (Usage & { spread: string })[] = []
      for (const c of CASES) ours.push(await medianUsage(c.body(post), RUNS))
      for (const [i, c] of CASES.entries()) {
        const hand = HAND ? await medianUsage(data.hand[c.hand], RUNS) : null
        const u = ours[i]
        const goal = events === 40_000_000 ? ` (goal <= ${c.goal})` : ''
        const handCells = hand ? [hand.ms.toFixed(0), (hand.cpu / 1000).toFixed(1), (u.ms / hand.ms).toFixed(2)] : ['-', '-', '-']
        const row = line([c.label, `${events / 1e6}M`, `${u.ms.toFixed(0)}${goal}`, u.spread, (u.cpu / 1000).toFixed(1), mb(u), ...handCells])
        console.log(row)
        rows[i].push(row)
        product[i].push(u)
      }
      if (events === largest && process.env.BENCH_SCALE_THREADS !== '0') await benchFunnelThreads(data.app, post)
      console.log(`load after ${events / 1e6}M: ${loadAverage()}`)
    } finally {
      await data.close()
    }
  }
  const head = ['Analysis', 'Events', 'Product ms', 'Spread ms', 'CPU s', 'RSS peak MB', 'Hand-written DuckDB ms', 'Hand CPU s', 'Ratio']
  console.log(['', line(head), line(head.map(() => '---')), ...rows.flat()].join('\n'))
  // growth from size to size next to the events' own growth (1.0 = linear in the events), in wall
  // and in CPU time: on a loaded machine the wall time says more about the load than the analysis
  for (const [i, c] of CASES.entries()) {
    const steps = sizes.slice(1).map((events, k) => {
      const more = events / sizes[k]
      const grew = (key: 'ms' | 'cpu') => product[i][k + 1][key] / product[i][k][key]
      return `${sizes[k] / 1e6}M -> ${events / 1e6}M for x${more} events: wall x${grew('ms').toFixed(1)}, CPU x${grew('cpu').toFixed(1)} (${(grew('cpu') / more).toFixed(2)} of linear)`
    })
    console.log(`scaling, ${c.label.padEnd(30)} ${steps.join('; ')}`)
  }
}

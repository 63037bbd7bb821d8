// How the main analyses scale with the events (issue 23: 1M, 10M, 40M): at each size the product
// through HTTP and the hand-written DuckDB query, median of 3 warm runs each, printed as one table.
// Each size's project is opened in turn (10M and up from bench/.cache, built the first time).
import { openAnalysisData, type AnalysisData } from './analysisData'

type Post = (path: string, body: object, dated?: boolean) => () => Promise<void>

const steps = ['view', 'cart', 'checkout', 'pay'].map((e) => ({ expression: `event.${e}` }))

/** The analyses compared, each with its hand-written counterpart. */
const CASES: { label: string; body: (post: Post) => () => Promise<void>; hand: keyof AnalysisData['hand'] }[] = [
  { label: 'funnel, 4 steps, 7-day window', body: (post) => post('/uba/api/funnels/analyze', { steps, convertTime: 7, convertTimeUnit: 'DAY' }), hand: 'funnels' },
  {
    label: 'retention, 30 days',
    body: (post) => post('/uba/api/retentions/analyze', { firstEvent: { expression: 'event.view' }, secondEvent: { expression: 'event.pay' }, byFieldIndex: -1, duration: 30, unit: 'DAY' }),
    hand: 'retention',
  },
  {
    label: 'event analysis, by $platform',
    body: (post) =>
      post('/uba/api/events/analyze', {
        measures: [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }, { expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' }],
        byFields: [{ expression: 'event.view.$platform' }],
      }),
    hand: 'events',
  },
  {
    label: 'distribution of view counts',
    body: (post) => post('/uba/api/distributions/analyze', { measure: { expression: 'event.view', aggregator: 'TOTAL_COUNT' }, unit: '' }),
    hand: 'distribution',
  },
]

export async function benchScale(sizes: number[], median3: (run: () => Promise<void>) => Promise<number>, poster: (data: AnalysisData) => Post): Promise<void> {
  // by analysis, then size
  const rows = CASES.map((): string[] => [])
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`
  for (const events of sizes) {
    const data = await openAnalysisData(events)
    try {
      console.log(`analysis data: ${events / 1e6}M events, ${data.users / 1000}k users, 60 days, ${data.origin}`)
      const post = poster(data)
      for (const [i, c] of CASES.entries()) {
        const ms = await median3(c.body(post))
        const hand = await median3(data.hand[c.hand])
        const row = line([c.label, `${events / 1e6}M`, ms.toFixed(0), hand.toFixed(0), (ms / hand).toFixed(2)])
        console.log(row)
        rows[i].push(row)
      }
    } finally {
      await data.close()
    }
  }
  console.log(['', line(['Analysis', 'Events', 'Product ms', 'Hand-written DuckDB ms', 'Ratio']), line(['---', '---', '---', '---', '---']), ...rows.flat()].join('\n'))
}

// Issue 20's options next to the same analysis without them, on the bench project (bench/analysis.ts):
// formula, and compare, whose compared range (the 30 days before the last 30) holds as many events.
// The target is a ratio of at most 1.5.

type Post = (path: string, body: object, dated?: boolean) => () => Promise<void>
type Median = (run: () => Promise<void>) => Promise<number>

const LAST30 = { fromDate: '2024-03-31', toDate: '2024-04-29' }

export async function benchEventOptions(post: Post, median3: Median): Promise<void> {
  const measures = [{ expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' }, { expression: 'event.pay', aggregator: 'TRIGGER_USER_COUNT' }]
  const events = { measures, byFields: [{ expression: 'event.view.$platform' }], ...LAST30 }
  const funnel = { steps: ['view', 'cart', 'checkout', 'pay'].map((e) => ({ expression: `event.${e}` })), convertTime: 7, convertTimeUnit: 'DAY', ...LAST30 }
  const pairs = [
    { label: 'events, formula A/B', path: '/uba/api/events/analyze', plain: events, with: { ...events, formula: 'A/B' } },
    { label: 'events, compare previous', path: '/uba/api/events/analyze', plain: events, with: { ...events, compare: 'previous' } },
    { label: 'events, formula + compare', path: '/uba/api/events/analyze', plain: events, with: { ...events, formula: 'A/B', compare: 'previous' } },
    { label: 'funnel, compare previous', path: '/uba/api/funnels/analyze', plain: funnel, with: { ...funnel, compare: 'previous' } },
  ]
  for (const pair of pairs) {
    const without = await median3(post(pair.path, pair.plain))
    const withIt = await median3(post(pair.path, pair.with))
    console.log(`${pair.label.padEnd(34)} ${withIt.toFixed(0).padStart(6)} ms, without ${without.toFixed(0)} ms, ratio ${(withIt / without).toFixed(2)} (target <= 1.5)`)
  }
}

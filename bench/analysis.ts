// Analyses on a 10-million-event project (200k users, 60 days), through HTTP with useCache false:
// median of 3 warm runs, next to a hand-written DuckDB query over the same events stored plainly
// as (varchar user, varchar event, bigint time, day). Ratios product / hand-written are the figure.
// BENCH_EVENTS=40000000 runs them on 40M events (800k users: analysisData.ts usersFor), and
// BENCH_SCALE=1000000,10000000,40000000 prints how the main four scale over those sizes.
import { FROM, openAnalysisData, TO, type AnalysisData } from './analysisData'
import { benchClickHouse } from './clickhouse'
import { benchEventOptions } from './eventOptions'
import { benchFunnelThreads } from './funnelThreads'
import { benchScale } from './scale'

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000_000)

async function median3(run: () => Promise<void>): Promise<number> {
  await run() // warm
  const times: number[] = []
  for (let i = 0; i < 3; i++) {
    const t = performance.now()
    await run()
    times.push(performance.now() - t)
  }
  return times.sort((a, b) => a - b)[1]
}

/** A POST of an analysis to the bench's project, over its whole range unless `dated` is false. */
export function poster(data: AnalysisData) {
  return (path: string, body: object, dated = true) => async () => {
    const range = dated ? { fromDate: FROM, toDate: TO } : {}
    const res = await fetch(`${data.app.url}${path}`, { method: 'POST', headers: { ...data.project, 'content-type': 'application/json' }, body: JSON.stringify({ crowds: ['$ALL'], ...range, useCache: false, ...body }) })
    await res.arrayBuffer()
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`)
  }
}

export async function benchAnalysis(): Promise<void> {
  // BENCH_SCALE=1000000,10000000,40000000: the four analyses at each size, as a table, alone
  if (process.env.BENCH_SCALE) return benchScale(process.env.BENCH_SCALE.split(',').map(Number), poster)
  const data = await openAnalysisData(EVENTS)
  try {
    const { app, project, hand } = data
    console.log(`analysis data: ${(EVENTS / 1e6).toFixed(1)}M events, ${data.users / 1000}k users, 60 days, ${data.origin}`)
    const post = poster(data)
    const retention = (options: object) =>
      post('/uba/api/retentions/analyze', { firstEvent: { expression: 'event.view' }, secondEvent: { expression: 'event.pay' }, byFieldIndex: -1, duration: 30, unit: 'DAY', ...options })
    const byPlatform = { byField: { expression: 'event.view.$platform' }, byFieldIndex: 1 }
    const cases: { label: string; target: number; run: () => Promise<void>; hand?: () => Promise<void>; versus?: string }[] = [
      { label: 'event analysis, by $platform', target: 400, run: post('/uba/api/events/analyze', { measures: [{ expression: 'event.view', aggregator: 'TOTAL_COUNT' }, { expression: 'event.view', aggregator: 'TRIGGER_USER_COUNT' }], byFields: [{ expression: 'event.view.$platform' }] }), hand: hand.events },
      { label: 'funnel, 4 steps, 7-day window', target: 1500, run: post('/uba/api/funnels/analyze', { steps: ['view', 'cart', 'checkout', 'pay'].map((e) => ({ expression: `event.${e}` })), convertTime: 7, convertTimeUnit: 'DAY' }), hand: hand.funnels },
      // the users behind a funnel cell: the same path following, with a listener (analysis/cells)
      { label: 'funnel users dropped after step 2', target: 1500, run: post('/uba/api/funnels/users', { steps: ['view', 'cart', 'checkout', 'pay'].map((e) => ({ expression: `event.${e}` })), convertTime: 7, convertTimeUnit: 'DAY', cell: { step: 1, outcome: 'dropped' }, pageSize: 50 }) },
      { label: 'retention, 30 days', target: 1500, run: retention({}), hand: hand.retention },
      // the options of issue 20, each next to the same retention without it (ratio <= 1.5)
      { label: '  on or after', target: 1500, run: retention({ retentionMode: 'onOrAfter' }), versus: 'retention, 30 days' },
      { label: '  first time', target: 1500, run: retention({ firstTime: true }), versus: 'retention, 30 days' },
      { label: 'retention by $platform', target: 1500, run: retention(byPlatform) },
      { label: '  on or after', target: 1500, run: retention({ ...byPlatform, retentionMode: 'onOrAfter' }), versus: 'retention by $platform' },
      { label: '  first time', target: 1500, run: retention({ ...byPlatform, firstTime: true }), versus: 'retention by $platform' },
      { label: 'distribution of view counts', target: 800, run: post('/uba/api/distributions/analyze', { measure: { expression: 'event.view', aggregator: 'TOTAL_COUNT' }, unit: '' }) },
      { label: 'user attributes, user count', target: 200, run: post('/uba/api/userAttributes/analyze', { measure: { aggregator: 'USER_COUNT' }, byFields: [] }, false) },
    ]
    const timings = new Map<string, number>()
    // BENCH_CASES=funnel runs the cases whose label holds that text (here, in the options' pairs and the values)
    const only = process.env.BENCH_CASES
    // BENCH_FUNNEL_OPTIONS=only: the funnel options' ratios alone (the cases above take minutes on a loaded machine)
    const chosen = process.env.BENCH_FUNNEL_OPTIONS === 'only' ? [] : cases
    for (const c of chosen.filter((x) => !only || x.label.includes(only))) {
      let ms: number
      try {
        ms = await median3(c.run)
      } catch (err) {
        console.log(`${c.label.padEnd(34)} not available (${(err as Error).message})`)
        continue
      }
      const handMs = c.hand ? await median3(c.hand) : undefined
      if (!c.versus) timings.set(c.label, ms)
      const without = c.versus ? timings.get(c.versus) : undefined
      const ratio = handMs
        ? `   hand-written ${handMs.toFixed(0)} ms, ratio ${(ms / handMs).toFixed(2)}`
        : without
          ? `   ratio ${(ms / without).toFixed(2)} to the same without it`
          : ''
      console.log(`${c.label.padEnd(34)} ${ms.toFixed(0).padStart(6)} ms (target <= ${c.target} ms)${ratio}`)
    }
    // values to pick from in a filter: a sample of about 100k rows of the 10M (target 200 ms)
    for (const [label, query] of [['values of event.view.$platform', 'expression=event.view.$platform'], ['values of $Anything price, search 4', 'expression=event.$Anything.price&search=4']].filter(([l]) => !only || l.includes(only))) {
      let read = 0
      const ms = await median3(async () => {
        const res = await fetch(`${app.url}/uba/api/meta/propertyValues?${query}`, { headers: project })
        if (res.status !== 200) throw new Error(`values: ${res.status}`)
        read = ((await res.json()) as { fraction: number }).fraction * EVENTS
      })
      console.log(`${label.padEnd(34)} ${ms.toFixed(0).padStart(6)} ms (target <= 200 ms)   reads about ${Math.round(read).toLocaleString('en')} of ${EVENTS.toLocaleString('en')} rows`)
    }
    await benchEventOptions(post, only)
    await benchFunnelThreads(app, post, only)
    // each funnel option next to the same funnel without it, measured back to back (the machine's load
    // varies over a run: the ratio of neighbours is the figure; issue 20 asks for at most 1.5)
    const funnel = { steps: ['view', 'cart', 'checkout', 'pay'].map((e) => ({ expression: `event.${e}` })), convertTime: 7, convertTimeUnit: 'DAY' }
    const options: [string, object][] = [
      ['exclusion (search, every span)', { exclusions: [{ expression: 'event.search' }] }],
      ['order STRICT', { order: 'STRICT' }],
      ['order ANY', { order: 'ANY' }],
      ['time to convert', { timeToConvert: true }],
    ]
    for (const [label, option] of options.filter(([l]) => !only || `funnel + ${l}`.includes(only))) {
      const plain = await median3(post('/uba/api/funnels/analyze', funnel))
      const ms = await median3(post('/uba/api/funnels/analyze', { ...funnel, ...option }))
      console.log(`funnel + ${label.padEnd(30)} ${ms.toFixed(0).padStart(6)} ms, without it ${plain.toFixed(0)} ms, ratio ${(ms / plain).toFixed(2)} (target <= 1.5)`)
    }
    // the same analyses on ClickHouse, next to DuckDB (BENCH_CLICKHOUSE=0 leaves it out)
    await benchClickHouse(data, only)
  } finally {
    await data.close()
  }
}

import { beforeAll, describe, expect, it } from 'vitest'
import { clickhouseAvailable } from '../helpers/clickhouse'
import { askBoth, useTwins } from '../helpers/twinProjects'
import { prng } from '../helpers/fuzz'

/**
 * Retention with a measure on ClickHouse (one read of the scan, cell keys carrying the partials:
 * parts/retentionMeasure.ts) answers DuckDB's numbers (user-period pairs joined) on generated
 * events where the hand-made ones are too few: users who start on several days and come back the
 * same number of days after more than one of them (a $ALL cell counts them once and their returns
 * once each), several buys a day, buys without an amount or a channel, a login that is both
 * an initial and a return event. Every measure, first time only, weeks. Amounts are halves, so
 * every sum is exact on both engines.
 */

const USERS = 300
const T0 = Date.UTC(2024, 0, 1)
const DAY_MS = 86_400_000
const CHANNELS = ['web', 'app', null]

function generate(): string[] {
  const rnd = prng(22)
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]
  const lines: string[] = []
  let second = 0
  const at = (day: number) => T0 + day * DAY_MS + (second++ % 86_000) * 1000
  for (let u = 0; u < USERS; u++) {
    const xwho = `u${u}`
    for (let i = Math.floor(rnd() * 5); i > 0; i--) lines.push(JSON.stringify({ xwho, xwhat: 'login', xwhen: at(Math.floor(rnd() * 16)), xcontext: { ch: pick(CHANNELS) } }))
    for (let i = Math.floor(rnd() * 8); i > 0; i--) {
      const amount = rnd() < 0.2 ? null : Math.floor(rnd() * 12) / 2 + 0.5
      const ch = pick(CHANNELS)
      lines.push(JSON.stringify({ xwho, xwhat: 'buy', xwhen: at(Math.floor(rnd() * 20)), xcontext: { ...(amount === null ? {} : { amount }), ...(ch === null ? {} : { ch }) } }))
    }
  }
  return lines
}

/** Users who come back k days after two of their login days in the range (those $ALL must count once): the data has to hold some. */
function backTwiceAtOneOffset(lines: string[]): number {
  const days = new Map<string, { logins: Set<number>; buys: Set<number> }>()
  for (const line of lines) {
    const e = JSON.parse(line) as { xwho: string; xwhat: string; xwhen: number }
    const user = days.get(e.xwho) ?? { logins: new Set(), buys: new Set() }
    days.set(e.xwho, user)
    const day = Math.floor((e.xwhen - T0) / DAY_MS)
    if (e.xwhat === 'buy') user.buys.add(day)
    else if (day >= 2 && day <= 11) user.logins.add(day)
  }
  return [...days.values()].filter((u) => [0, 1, 2, 3, 4].some((k) => [...u.logins].filter((s) => u.buys.has(s + k)).length > 1)).length
}

const LINES = generate()
const base = { crowds: ['$ALL'], fromDate: '2024-01-03', toDate: '2024-01-12', unit: 'DAY', duration: 4, firstEvent: { expression: 'event.login' }, secondEvent: { expression: 'event.buy' } }
const amount = (aggregator: string) => ({ measures: [{ expression: 'event.buy.amount', aggregator }] })

const CASES: [string, Record<string, unknown>][] = [
  ...['SUM', 'AVG', 'AVG_PER', 'MAX', 'MIN', 'REMOVE_DUMPLICATE'].map((a): [string, Record<string, unknown>] => [`${a} of the amount`, amount(a)]),
  ['distinct channels (texts)', { measures: [{ expression: 'event.buy.ch', aggregator: 'REMOVE_DUMPLICATE' }] }],
  ['AVG_PER, first time only', { ...amount('AVG_PER'), firstTime: true }],
  ['SUM by week', { ...amount('SUM'), unit: 'WEEK', fromDate: '2024-01-01', toDate: '2024-01-14', duration: 1 }],
  ['AVG_PER of a web buy after a web login', { ...amount('AVG_PER'), firstEvent: { expression: 'event.login', filter: { conditions: [{ expression: 'event.login.ch', function: 'EQ', params: ['web'] }], relation: 'AND' } } }],
  ['distinct channels, login back after a login', { firstEvent: { expression: 'event.login' }, secondEvent: { expression: 'event.login' }, measures: [{ expression: 'event.login.ch', aggregator: 'REMOVE_DUMPLICATE' }] }],
]

describe.skipIf(!clickhouseAvailable())('retention measures on generated events: ClickHouse answers DuckDB\'s numbers', () => {
  const twins = useTwins('retm', 'UTC', LINES)

  beforeAll(async () => {
    expect(twins.copied?.event_vd).toBe(LINES.length)
    expect(backTwiceAtOneOffset(LINES)).toBeGreaterThan(10)
  })

  for (const [name, body] of CASES) {
    it(name, async () => {
      const [duck, house] = await askBoth(twins.server, twins, 'POST', '/uba/api/retentions/analyze', { ...base, ...body })
      expect(house.rows).toEqual(duck.rows)
      // not a trivial answer: people returned and carried a measure
      expect(duck.rows[0].retentionPeoples.some((n: number | null) => (n ?? 0) > 0)).toBe(true)
      expect(duck.rows[0].measures.some((m: number | null) => (m ?? 0) > 0)).toBe(true)
    })
  }
})

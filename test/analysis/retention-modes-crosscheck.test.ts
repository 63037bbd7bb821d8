import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'
import { prng } from '../helpers/fuzz'

/*
 * The modes on more users than one bitmap chunk holds (4096 ids): the server's answer equals a
 * plain per-user count written here, for the plain rows, a breakdown by bitmaps (channel) and one
 * per user (tags, a list), in both modes and with first-time cohorts. Days are UTC days from
 * 2024-01-01; every event has its own second, so there are no ties here (the hand tests have them).
 */

interface Start { day: number; at: number; channel: string }
interface Person { starts: Start[]; visits: Set<number> }

const USERS = 5000
const DAY_MS = 86_400_000
const T0 = Date.UTC(2024, 0, 1)
const CHANNELS = ['ads', 'seo', 'mail']
const RANGE = { from: 5, to: 34 }
const DURATION = 10

const people = new Map<string, Person>()
let lastDay = 0

const dayText = (d: number) => new Date(T0 + d * DAY_MS).toISOString().slice(0, 10)

/** The events of every user (the same on every run), noting each user's starts and visit days in `people`. */
function generate(): string[] {
  const rnd = prng(20)
  const lines: string[] = []
  let second = 0
  for (let u = 0; u < USERS; u++) {
    const who = `u${u}`
    const person: Person = { starts: [], visits: new Set() }
    for (let i = Math.floor(rnd() * 4); i > 0; i--) {
      const day = Math.floor(rnd() * 40)
      const at = T0 + day * DAY_MS + (second++ % 86_000) * 1000
      const channel = CHANNELS[Math.floor(rnd() * 3)]
      person.starts.push({ day, at, channel })
      lines.push(JSON.stringify({ xwho: who, xwhat: 'signup', xwhen: at, xcontext: { channel, tags: [channel] } }))
    }
    for (let i = Math.floor(rnd() * 7); i > 0; i--) {
      const day = Math.floor(rnd() * 50)
      person.visits.add(day)
      lines.push(JSON.stringify({ xwho: who, xwhat: 'visit', xwhen: T0 + day * DAY_MS + (second++ % 86_000) * 1000, xcontext: {} }))
      lastDay = Math.max(lastDay, day)
    }
    for (const st of person.starts) lastDay = Math.max(lastDay, st.day)
    people.set(who, person)
  }
  return lines
}
const lines = generate()

type Mode = 'on' | 'onOrAfter'

/** The rows the server should answer, keyed by byValue: [totalPeople, retentionPeoples]. */
function expected(mode: Mode, firstTime: boolean, byChannel: boolean): Map<string, [number, (number | null)[]]> {
  const back = (person: Person, start: number, k: number) =>
    mode === 'on' ? person.visits.has(start + k) : Array.from({ length: DURATION - k + 1 }, (_, j) => start + k + j).some((d) => person.visits.has(d))
  const startsOf = (person: Person): Start[] => {
    if (!firstTime) return person.starts.filter((st) => st.day >= RANGE.from && st.day <= RANGE.to)
    const first = [...person.starts].sort((a, b) => a.at - b.at)[0]
    return first && first.day >= RANGE.from && first.day <= RANGE.to ? [first] : []
  }
  const rows = new Map<string, [number, (number | null)[]]>()
  const rowOf = (label: string, firstDay: number, keep: (st: Start) => boolean) => {
    const users = [...people.values()].map((person) => ({ person, starts: startsOf(person).filter(keep) })).filter((x) => x.starts.length > 0)
    const cells = Array.from({ length: DURATION + 1 }, (_, k) =>
      firstDay + k > lastDay ? null : users.filter(({ person, starts }) => starts.some((st) => back(person, st.day, k))).length,
    )
    rows.set(label, [users.length, cells])
  }
  rowOf('$ALL', RANGE.from, () => true)
  if (byChannel) for (const c of CHANNELS) rowOf(c, RANGE.from, (st) => st.channel === c)
  else for (let d = RANGE.from; d <= RANGE.to; d++) rowOf(`${dayText(d).replaceAll('-', '/')} 00:00:00`, d, (st) => st.day === d)
  return rows
}

describe.each(ENGINES)('retention modes cross-checked, on %s', (engine) => {
  const host = useEngine(engine)
  let p: Project

  beforeAll(async () => {
    p = await host.project('retcross', 'UTC')
    const job = await importAndWait(host.server, p, { path: fixture('retcross.jsonl', lines.join('\n')) })
    if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
  }, 120_000)

  async function answer(body: Record<string, unknown>): Promise<Map<string, [number, (number | null)[]]>> {
    const res = await host.server.call('POST', '/uba/api/retentions/analyze', {
      headers: p,
      body: { firstEvent: { expression: 'event.signup' }, secondEvent: { expression: 'event.visit' }, crowds: ['$ALL'], fromDate: dayText(RANGE.from), toDate: dayText(RANGE.to), duration: DURATION, unit: 'DAY', ...body },
    })
    expect(res.status).toBe(200)
    return new Map(res.body.rows.map((r: { byValue: string; totalPeople: number; retentionPeoples: (number | null)[] }) => [r.byValue, [r.totalPeople, r.retentionPeoples]]))
  }

  describe('retention modes on 5,000 users, against a per-user count', () => {
    it.each([
      ['on', false],
      ['onOrAfter', false],
      ['on', true],
      ['onOrAfter', true],
    ] as [Mode, boolean][])('%s, firstTime %s: by cohort, by channel (bitmaps) and by tags (per user)', async (mode, firstTime) => {
      const options = { retentionMode: mode, firstTime }
      const plain = expected(mode, firstTime, false)
      expect(plain.get('$ALL')?.[0]).toBeGreaterThan(1000)
      expect(await answer(options)).toEqual(plain)
      const byChannel = expected(mode, firstTime, true)
      expect(await answer({ ...options, byField: { expression: 'event.signup.channel' }, byFieldIndex: 1 })).toEqual(byChannel)
      expect(await answer({ ...options, byField: { expression: 'event.signup.tags' }, byFieldIndex: 1 })).toEqual(byChannel)
    })
  })
})

import { beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngine, type Project } from '../helpers/engines'
import { fixture, importAndWait } from '../helpers/ingest'
import type { TestServer } from '../helpers/server'
import { content, eventRule, group, single, userRule } from './cohorts-helpers'

const ok = userRule('user.city', 'EQ', ['X'])
const abs = { abs: ['2024-01-01', '2024-01-02'] as [string, string] }
const buys = (fn = 'GTE', params: unknown[] = [1]) => eventRule('event.buy', 'TOTAL_COUNT', fn, params, abs)
/** The rule under test is the first of group 1 (group 0 is a valid one). */
const second = (rule: unknown) => content([group([ok]), group([rule])])
const R = 'content.ruleGroup[1].rules[0]'

const cases: [string, unknown, string[]][] = [
  ['a missing rule type', second({ expression: 'user.city', function: 'EQ', params: ['X'] }), [`${R}.type`]],
  ['an unknown rule type', second({ ...ok, type: 'profile' }), [`${R}.type`]],
  ['a rule that is not an object', second('city = X'), [R]],
  ['an operator that does not fit a string property', second(userRule('user.city', 'GT', [1])), [`${R}.function`]],
  ['an operator that does not fit a number property', second(userRule('user.age', 'CONTAIN', ['1'])), [`${R}.function`]],
  ['a missing function', second({ type: 'user', expression: 'user.city', params: ['X'] }), [`${R}.function`]],
  ['an unknown user property', second(userRule('user.nope', 'EQ', ['X'])), [`${R}.expression`]],
  ['an event expression in a user rule', second(userRule('event.buy.price', 'EQ', [1])), [`${R}.expression`]],
  ['params of the wrong type', second(userRule('user.age', 'GT', ['three'])), [`${R}.params`]],
  ['RANGE with one param', second(userRule('user.age', 'RANGE', [3])), [`${R}.params`]],
  ['RELATIVE_TIME_OF_EVENT in a user rule', second(userRule('user.$signup_time', 'RELATIVE_TIME_OF_EVENT', [1, 'day', 'within'])), [`${R}.function`]],
  ['an unknown event', second(eventRule('event.nope', 'TOTAL_COUNT', 'GTE', [1], abs)), [`${R}.expression`]],
  ['an unknown event property', second(eventRule('event.buy.nope', 'REMOVE_DUMPLICATE', 'GTE', [1], abs)), [`${R}.expression`]],
  ['a property of another event', second(eventRule('event.buy.page', 'REMOVE_DUMPLICATE', 'GTE', [1], abs)), [`${R}.expression`]],
  ['an unknown aggregator', second(eventRule('event.buy', 'SUM', 'GTE', [1], abs)), [`${R}.aggregator`]],
  ['TOTAL_COUNT on a property', second(eventRule('event.buy.price', 'TOTAL_COUNT', 'GTE', [1], abs)), [`${R}.expression`]],
  ['REMOVE_DUMPLICATE on an event', second(eventRule('event.buy', 'REMOVE_DUMPLICATE', 'GTE', [1], abs)), [`${R}.expression`]],
  ['NULL on an event count', second(buys('NULL', [])), [`${R}.function`]],
  ['NOT_NULL on an event count', second(buys('NOT_NULL', [])), [`${R}.function`]],
  ['a string operator on an event count', second(buys('CONTAIN', ['1'])), [`${R}.function`]],
  ['a count threshold that is not a number', second(buys('GTE', ['one'])), [`${R}.params`]],
  ['no time window', second(eventRule('event.buy', 'TOTAL_COUNT', 'GTE', [1], {})), [`${R}.eventAbsoluteTimeParams`, `${R}.eventRelativeTimeParam`]],
  ['absolute days in the wrong order', second(eventRule('event.buy', 'TOTAL_COUNT', 'GTE', [1], { abs: ['2024-01-02', '2024-01-01'] })), [`${R}.eventAbsoluteTimeParams`]],
  ['an absolute day that does not exist', second(eventRule('event.buy', 'TOTAL_COUNT', 'GTE', [1], { abs: ['2024-02-30', '2024-03-01'] })), [`${R}.eventAbsoluteTimeParams[0]`]],
  ['one absolute day only', second({ ...buys(), eventAbsoluteTimeParams: ['2024-01-01'] }), [`${R}.eventAbsoluteTimeParams`]],
  ['a relative window in another unit', second(eventRule('event.buy', 'TOTAL_COUNT', 'GTE', [1], { rel: '7 week' })), [`${R}.eventRelativeTimeParam`]],
  ['a relative window ending before it starts', second(eventRule('event.buy', 'TOTAL_COUNT', 'GTE', [1], { rel: '1,7,day' })), [`${R}.eventRelativeTimeParam`]],
  ['an event filter on another event', second(eventRule('event.buy', 'TOTAL_COUNT', 'GTE', [1], abs, { conditions: [{ expression: 'event.view.page', function: 'EQ', params: ['home'] }] })), [`${R}.filter.conditions[0].expression`]],
  ['an event filter with a bad operator', second(eventRule('event.buy', 'TOTAL_COUNT', 'GTE', [1], abs, { conditions: [{ expression: 'event.buy.price', function: 'CONTAIN', params: ['x'] }] })), [`${R}.filter.conditions[0].function`]],
  ['an empty ruleGroup', { ruleGroup: [] }, ['content.ruleGroup']],
  ['a group without rules', content([group([ok]), group([])]), ['content.ruleGroup[1].rules']],
  ['a group relation other than AND / OR', content([group([ok], 'XOR')]), ['content.ruleGroup[0].relation']],
  ['a relation between groups other than AND / AND_NOT', content([group([ok]), group([ok])], ['OR']), ['content.relations[0]']],
  ['too many relations for the groups', content([group([ok]), group([ok]), group([ok])], ['AND', 'AND', 'AND']), ['content.relations']],
  ['two relations for four groups', content([group([ok]), group([ok]), group([ok]), group([ok])], ['AND', 'AND_NOT']), ['content.relations']],
  ['content that is not an object', [ok], ['content']],
]

describe.each(ENGINES)('malformed cohort rules, on %s', (engine) => {
  const host = useEngine(engine)
  let s: TestServer
  let p: Project

  beforeAll(async () => {
    s = host.server
    p = await host.project('cr', 'UTC')
    const lines = [
      { xwho: 'a', xwhat: '$profile_set', xwhen: Date.parse('2024-01-01T00:00:00Z'), xcontext: { city: 'X', age: 3 } },
      { xwho: 'a', xwhat: 'buy', xwhen: Date.parse('2024-01-01T00:00:00Z'), xcontext: { price: 3 } },
      { xwho: 'a', xwhat: 'view', xwhen: Date.parse('2024-01-01T00:00:00Z'), xcontext: { page: 'home' } },
    ]
    const job = await importAndWait(s, p, { path: fixture('cr.jsonl', lines.map((l) => JSON.stringify(l)).join('\n')) })
    if (job.state !== 'succeeded') throw new Error(JSON.stringify(job))
  })

  it.each(cases)('refuses %s with a 400 naming its path', async (_what, c, data) => {
    const before = (await s.call('GET', '/uba/api/cohort', { headers: p })).body.length
    const res = await s.call('POST', '/uba/api/cohort', { headers: p, body: { name: 'bad', dynamic: 0, content: c } })
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body.code).toBe(400)
    expect(res.body.data).toEqual(data)
    expect((await s.call('GET', '/uba/api/cohort', { headers: p })).body.length).toBe(before)
  })

  it('says what is wrong in the message, under the rule path', async () => {
    const res = await s.call('POST', '/uba/api/cohort', { headers: p, body: { name: 'bad', dynamic: 0, content: second(userRule('user.city', 'GT', [1])) } })
    expect(res.body.msg).toBe(`${R}.function: GT does not apply to a string property (use EQ, NOT_EQ, CONTAIN, NOT_CONTAIN, NULL, NOT_NULL)`)
  })

  it('refuses a missing name, dynamic or content', async () => {
    const body = { name: 'x', dynamic: 0, content: single(ok) }
    const refused = async (b: unknown) => (await s.call('POST', '/uba/api/cohort', { headers: p, body: b })).body.data
    expect(await refused({ ...body, name: undefined })).toEqual(['name'])
    expect(await refused({ ...body, name: '' })).toEqual(['name'])
    expect(await refused({ ...body, dynamic: 2 })).toEqual(['dynamic'])
    expect(await refused({ ...body, content: undefined })).toEqual(['content'])
  })

  it('accepts relations written in lower case and one relation for several groups', async () => {
    const res = await s.call('POST', '/uba/api/cohort', { headers: p, body: { name: 'lower', dynamic: 0, content: content([group([ok], 'or'), group([ok]), group([ok])], ['and_not']) } })
    expect(res.status).toBe(200)
    expect(res.body.content.relations).toEqual(['AND_NOT', 'AND_NOT'])
    expect(res.body.content.ruleGroup[0].relation).toBe('OR')
  })
})

import { beforeAll, describe, expect, it } from 'vitest'

/**
 * The chart builder's drafts hold the contract's words (aggregators, filter operators); what comes
 * from outside the pickers (a stored report, a hand-edited draft) is checked before it is sent.
 */

type Definitions = { events: { unit: string; measures: object[] }; distribution: { measure: object } }
type Condition = { key: string; property: { scope: 'user'; id: string; dataType: 'number' }; function: string; params: (string | number)[] }
interface Models {
  defaultDefinitions: () => Definitions
  newMeasure: (eventId: string) => object
  buildRequest: (kind: string, defs: Definitions, ctx: object) => unknown
  conditionApplies: (c: Condition) => boolean
  filterOf: (draft: { relation: 'AND' | 'OR'; conditions: Condition[] }, eventId: string) => unknown
}
let m: Models

/** Imported by a path built at run time: their types reach the renderer's stores, which the node-side typecheck cannot read. */
beforeAll(async () => {
  const dir = '../../src-renderer/src/models/charts/'
  m = { ...(await import(dir + 'definitions')), ...(await import(dir + 'requests')) } as Models
})

const ctx = { range: { fromDate: '2026-11-01', toDate: '2026-11-07' }, crowd: '' }

/** A draft as a stored report could bring it back: its words not checked by the type system. */
function withAggregator(defs: Definitions, kind: 'events' | 'distribution', aggregator: string): Definitions {
  const measure = { ...m.newMeasure('pay'), aggregator }
  if (kind === 'events') return { ...defs, events: { ...defs.events, measures: [measure] } }
  return { ...defs, distribution: { ...defs.distribution, measure } }
}

describe('chart requests from drafts', () => {
  it('sends an aggregator the analysis offers, and asks for one instead of sending another analysis’s', () => {
    const defs = m.defaultDefinitions()
    expect(m.buildRequest('events', withAggregator(defs, 'events', 'TOTAL_COUNT'), ctx)).toEqual({
      body: { fromDate: '2026-11-01', toDate: '2026-11-07', crowds: ['$ALL'], useCache: true, measures: [{ expression: 'event.pay', aggregator: 'TOTAL_COUNT' }], unit: defs.events.unit },
    })
    // DISTRIBUTION_TIME is a distribution measure: the events analysis does not take it
    expect(m.buildRequest('events', withAggregator(defs, 'events', 'DISTRIBUTION_TIME'), ctx)).toEqual({ missing: 'Pick what to count for measure 1.' })
    expect(m.buildRequest('distribution', withAggregator(defs, 'distribution', 'DISTRIBUTION_TIME'), ctx)).toMatchObject({ body: { measure: { expression: 'event.pay', aggregator: 'DISTRIBUTION_TIME' } } })
    expect(m.buildRequest('distribution', withAggregator(defs, 'distribution', 'TRIGGER_USER_COUNT'), ctx)).toEqual({ missing: 'Pick what to count.' })
  })

  it('sends a condition only with an operator of its property’s type and complete values', () => {
    const age = { scope: 'user' as const, id: 'age', dataType: 'number' as const }
    const ok = { key: 'a', property: age, function: 'GT', params: [30] }
    // CONTAIN is a string operator: on a number it would be a 400, so it is "not applied"
    const wrongType = { key: 'b', property: age, function: 'CONTAIN', params: ['3'] }
    const unpicked = { key: 'c', property: age, function: '', params: [] }
    const incomplete = { key: 'd', property: age, function: 'RANGE', params: [1] }
    expect([ok, wrongType, unpicked, incomplete].map(m.conditionApplies)).toEqual([true, false, false, false])
    expect(m.filterOf({ relation: 'OR', conditions: [ok, wrongType, unpicked, incomplete] }, 'pay')).toEqual({ relation: 'OR', conditions: [{ expression: 'user.age', function: 'GT', params: [30] }] })
    expect(m.filterOf({ relation: 'AND', conditions: [wrongType] }, 'pay')).toBeUndefined()
  })
})

import { describe, expect, it } from 'vitest'
import type { EventRef } from '../../src-main/domain/expr/eventRefs'
import { validateFilter } from '../../src-main/domain/expr/filters'
import { eventCodes, type FunnelStep } from '../../src-main/domain/analysis/funnelSql'
import type { FunnelExclusion } from '../../src-main/domain/analysis/funnelOptions'
import { placeEvents, SPAN_AT, STEP_SPAN } from '../../src-main/domain/analysis/funnelRows'

// A funnel whose steps are events by name alone reads each event's place in a list of names; the
// path following maps the place back to the steps' bits and the exclusions' spans (funnelSql.ts).

const event = (id: string): EventRef => ({ expression: `event.${id}`, eventId: id, kind: 'event', members: [{ eventId: id }] })
const step = (id: string): FunnelStep => ({ expression: `event.${id}`, event: event(id) })
const priced = validateFilter({ conditions: [{ expression: 'event.view.price', function: 'GTE', params: [10] }] }, 'filter', () => 'number')
const codes = (steps: FunnelStep[], exclusions: FunnelExclusion[] = []) => eventCodes({ steps, exclusions, byField: null })

describe('the event codes of a funnel scan', () => {
  it('numbers the steps events from 1, each standing for its step bit', () => {
    const c = codes(['view', 'cart', 'pay'].map(step))!
    expect(c.names).toEqual(['view', 'cart', 'pay'])
    expect([...c.md]).toEqual([0, 1, 2, 4])
  })

  it('gives an event named by two steps both bits, and a virtual event its members', () => {
    const virtual: FunnelStep = { expression: 'event.buy', event: { expression: 'event.buy', eventId: 'buy', kind: 'virtual', members: [{ eventId: 'cart' }, { eventId: 'pay' }] } }
    const c = codes([step('view'), virtual, step('view'), step('pay')])!
    expect(c.names).toEqual(['view', 'cart', 'pay'])
    expect([...c.md]).toEqual([0, 1 | 4, 2, 2 | 8])
  })

  it('puts an exclusion event spans above bit 32, with its steps if it is also a step', () => {
    const exclusions: FunnelExclusion[] = [
      { ...step('search'), fromStep: 0, toStep: 2 },
      { ...step('cart'), fromStep: 1, toStep: 2 },
    ]
    const c = codes(['view', 'cart', 'pay'].map(step), exclusions)!
    expect(c.names).toEqual(['view', 'cart', 'pay', 'search'])
    expect([...c.md]).toEqual([0, 1, 2 + 0b10 * SPAN_AT, 4, 0b11 * SPAN_AT])
  })

  it('is none with a filter, a filtered member, $Anything or a breakdown (the CASE of each row then)', () => {
    expect(codes([{ ...step('view'), filter: priced }, step('pay')])).toBeNull()
    const filteredMember: FunnelStep = { expression: 'event.buy', event: { expression: 'event.buy', eventId: 'buy', kind: 'virtual', members: [{ eventId: 'view', filter: priced }] } }
    expect(codes([filteredMember, step('pay')])).toBeNull()
    expect(codes([step('view'), { expression: 'event.$Anything', event: { expression: 'event.$Anything', eventId: '$Anything', kind: 'any', members: [] } }])).toBeNull()
    expect(codes([{ ...step('view'), filter: validateFilter({ conditions: [] }, 'filter', () => 'number') }, step('pay')])).not.toBeNull()
  })

  it('places a coded row as the bits and spans of its code and its day as the column', () => {
    const c = codes(['view', 'cart'].map(step), [{ ...step('search'), fromStep: 0, toStep: 1 }])!
    const uid = Int32Array.of(1, 0, -1, 1)
    const t = Float64Array.of(10, 20, 0, 30)
    // codes 1 (view) on day 2, 2 (cart) on day 1, a dictionary row, 3 (search) on day 2
    const md = Float64Array.of(1 + 2 * STEP_SPAN, 2 + 1 * STEP_SPAN, 0, 3 + 2 * STEP_SPAN)
    const events = new Float64Array(6)
    placeEvents(uid, Int32Array.of(0, 1), t, md, null, Int32Array.of(0, 5, 7), events, new Int32Array(0), true, c.md)
    expect([...events]).toEqual([20, 2 + 5 * STEP_SPAN, 10, 1 + 7 * STEP_SPAN, 30, SPAN_AT + 7 * STEP_SPAN])
  })
})

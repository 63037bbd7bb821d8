import { describe, expect, it } from 'vitest'
import { decodeState, encodeState, requestOf } from '../../src-renderer/src/views/Charts/model/chartState'
import { defaultDefinitions } from '../../src-renderer/src/views/Charts/model/definitions'

describe('a chart in the address', () => {
  it('reads back what it wrote', () => {
    const definition = { ...defaultDefinitions().funnels, convertTime: 3 }
    definition.steps = [
      { key: 'a', eventId: 'view', filter: { relation: 'AND', conditions: [] } },
      { key: 'b', eventId: 'buy', filter: { relation: 'AND', conditions: [] } },
    ]
    const state = { kind: 'funnels' as const, definition, range: { preset: 'custom' as const, from: '2024-03-01', to: '2024-03-07' }, crowd: 'c4' }
    const back = decodeState('funnels', encodeState(state))
    expect(back).toEqual(state)
    expect(requestOf(back!)).toMatchObject({ fromDate: '2024-03-01', toDate: '2024-03-07', crowds: ['c4'], steps: [{ expression: 'event.view' }, { expression: 'event.buy' }], convertTime: 3 })
  })

  it('gives the builder defaults for what a hand-edited link lacks or writes in another shape', () => {
    const back = decodeState('retention', JSON.stringify({ definition: { first: null, second: 'x', duration: 14, breakdown: { property: { scope: 'user', id: 'city', dataType: 'string' }, buckets: [] } }, range: { preset: 'soon' } }))
    const defaults = defaultDefinitions().retention
    expect(back?.definition).toMatchObject({ duration: 14, unit: defaults.unit, filter: defaults.filter, breakdown: { property: { id: 'city' } } })
    expect((back?.definition as typeof defaults).first.eventId).toBe(defaults.first.eventId)
    expect((back?.definition as typeof defaults).second.eventId).toBe(defaults.second.eventId)
    expect(back?.range).toEqual({ preset: 'last30', from: '', to: '' })
    expect(back?.crowd).toBe('$ALL')
    expect(decodeState('events', '{not json')).toBeNull()
    expect(decodeState('events', JSON.stringify({ definition: [] }))).toBeNull()
  })
})

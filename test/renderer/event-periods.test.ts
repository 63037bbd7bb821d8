import { describe, expect, it } from 'vitest'
import { change, changeText, periodState, splitLine } from '../../src-renderer/src/views/Charts/results/periods'

describe('event chart periods that are not over', () => {
  it('finds the period holding today and the first one after it, by day, week and month', () => {
    expect(periodState(['2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27'], 'DAY', '2026-11-26')).toEqual({ current: 2, future: 3 })
    expect(periodState(['2026-11-16', '2026-11-23', '2026-11-30'], 'WEEK', '2026-11-29')).toEqual({ current: 1, future: 2 })
    expect(periodState(['2026-10-01', '2026-11-01', '2026-12-01'], 'MONTH', '2026-11-30')).toEqual({ current: 1, future: 2 })
    expect(periodState(['2026-11-01', '2026-12-01'], 'MONTH', '2026-12-31')).toEqual({ current: 1, future: 2 })
    // a range that ended before today: every period is over
    expect(periodState(['2026-11-01', '2026-11-02'], 'DAY', '2026-11-26')).toEqual({ current: -1, future: 2 })
    expect(periodState(['2026-11-01'], 'DAY', undefined)).toEqual({ current: -1, future: 1 })
  })

  it('reaches the period in progress by a dotted tail and draws no point for periods not begun', () => {
    const days = ['2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27']
    expect(splitLine([5, 6, 2, 0], periodState(days, 'DAY', '2026-11-26'))).toEqual({ line: [5, 6, null, null], tail: [null, 6, 2, null] })
    expect(splitLine([5, 6, 2, 0], periodState(days, 'DAY', '2026-12-01'))).toEqual({ line: [5, 6, 2, 0], tail: null })
    // today before the range's end, in its first period: nothing to draw the tail from, the rest left out
    expect(splitLine([5, 0, 0, 0], periodState(days, 'DAY', '2026-11-24'))).toEqual({ line: [5, null, null, null], tail: null })
  })

  it('gives the change against the earlier figure, none from 0', () => {
    expect(change(6, 8)).toBe(-0.25)
    expect(changeText(change(6, 8))).toBe('-25.0%')
    expect(changeText(change(3, -2))).toBe('+250.0%')
    expect(change(5, 0)).toBeNull()
    expect(change(null, 3)).toBeNull()
  })
})

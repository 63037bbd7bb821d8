import { describe, expect, it } from 'vitest'
import type { EventsResponse } from '../../src-renderer/src/api/analysis'
import type { ChartPalette } from '../../src-renderer/src/components/charts/palette'
import { shapeEvents } from '../../src-renderer/src/views/Charts/results/events'
import { change, periodState } from '../../src-renderer/src/views/Charts/results/periods'

const palette: ChartPalette = { dark: false, text: '#111', muted: '#666', faint: '#999', border: '#ddd', surface: '#fff', accent: '#5750d8', series: ['#5750d8', '#1a9c8c'], scale: ['#fff', '#000'] }
const labels = { measures: ['Pay · Unique users'], steps: [], breakdowns: [], unit: 'DAY' }

describe('event chart periods that are not over', () => {
  it('finds the period holding today and the first one after it, by day, week and month', () => {
    expect(periodState(['2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27'], 'DAY', '2026-11-26')).toEqual({ current: 2, future: 3 })
    expect(periodState(['2026-11-16', '2026-11-23', '2026-11-30'], 'WEEK', '2026-11-29')).toEqual({ current: 1, future: 2 })
    expect(periodState(['2026-10-01', '2026-11-01', '2026-12-01'], 'MONTH', '2026-11-30')).toEqual({ current: 1, future: 2 })
    expect(periodState(['2026-11-01', '2026-12-01'], 'MONTH', '2026-12-31')).toEqual({ current: 1, future: 2 })
    // a range that ended before today: every period is over
    expect(periodState(['2026-11-01', '2026-11-02'], 'DAY', '2026-11-26')).toEqual({ current: -1, future: 2 })
  })

  it('reaches the period in progress by a dotted segment and draws no point for days not begun', () => {
    const r: EventsResponse = {
      measures: ['pay'],
      byFields: [],
      series: ['2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27'],
      rows: [{ byValue: [], sum: [9], values: [[5, 6, 2, 0]] }],
      numRows: 1,
      reportUpdateTime: '2026-11-26 10:00:00',
    }
    const shaped = shapeEvents(r, { ...labels, today: '2026-11-26' }, palette, 'line')
    const series = shaped.option!.series as { id: string; data: (number | null)[]; lineStyle: { type: string } }[]
    expect(series.map((s) => [s.id, s.data, s.lineStyle.type])).toEqual([
      ['drill:0:0', [5, 6, null, null], 'solid'],
      ['drill:0:0:tail', [null, 6, 2, null], 'dotted'],
    ])
    // the table keeps every figure the answer holds
    expect(shaped.table.rows[0].map((c) => c.value)).toEqual(['Pay · Unique users', 9, 5, 6, 2, 0])
    const over = shapeEvents(r, { ...labels, today: '2026-12-01' }, palette, 'line')
    expect((over.option!.series as { data: unknown[] }[]).map((s) => s.data)).toEqual([[5, 6, 2, 0]])
  })

  it('draws the compared series dashed and puts the earlier whole range and its change last in the table', () => {
    const r: EventsResponse = {
      measures: ['pay'],
      byFields: [],
      series: ['2026-10-01', '2026-10-02'],
      rows: [{ byValue: [], sum: [6], values: [[2, 4]], previous: { sum: [8], values: [[3, null]] } }],
      numRows: 1,
      compare: { mode: 'year', fromDate: '2025-10-01', toDate: '2025-10-02', series: ['2025-10-01', null] },
      reportUpdateTime: '2026-11-26 10:00:00',
    }
    const shaped = shapeEvents(r, labels, palette, 'line')
    const series = shaped.option!.series as { name: string; data: (number | null)[]; lineStyle: { type: string } }[]
    expect(series.map((s) => [s.name, s.data, s.lineStyle.type])).toEqual([
      ['Pay · Unique users (before)', [3, null], 'dashed'],
      ['Pay · Unique users', [2, 4], 'solid'],
    ])
    expect(shaped.table.columns.map((c) => c.label).slice(-2)).toEqual(['Before', 'Change'])
    // 6 against 8: -25%
    expect(shaped.table.rows[0].slice(-2)).toEqual([{ value: 8 }, { value: -0.25, text: '-25.0%' }])
    expect(change(5, 0)).toBeNull()
  })
})

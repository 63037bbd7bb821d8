import { describe, expect, it } from 'vitest'
import { countBitmaps } from '../../src-main/domain/analysis/retentionBitmaps'
import type { RetentionRequest } from '../../src-main/domain/analysis/retentionRequest'

// The cells counted in JS from the bitmaps the engine reads (retentionBitmaps.ts), on hand-made
// bitmaps: ids as DuckDB's BIT read back as bytes (bit i of a chunk: byte i >> 3, from the high bit).

function bytes(bits: number, ids: number[]): Uint8Array {
  const out = new Uint8Array(bits / 8)
  for (const id of ids) out[(id % bits) >> 3] |= 0x80 >> (id % bits) % 8
  return out
}

type Row = [period: number, w: number, d: string | null, fb: number[] | null, rb: number[] | null]

async function count(bits: number, req: Partial<RetentionRequest>, rows: Row[]) {
  const cells = await countBitmaps({ mode: 'on', duration: 3, breakdown: null, ...req } as RetentionRequest, bits, rows.flatMap(([period, w, d, fb, rb]) => [
    ...(fb ? [{ period, w, d, fr: 1, b: bytes(bits, fb) }] : []),
    ...(rb ? [{ period, w, d, fr: 2, b: bytes(bits, rb) }] : []),
  ]))
  return (s: number | null, d: string | null, k: number | null) => cells.get(`${s}|${d}|${k}`)?.n
}

describe('retention cells from bitmaps', () => {
  // users 1 and 2 in chunk 0, 70 in chunk 1 (64 ids a chunk): 1 starts at 0 and is back at 1 and 3;
  // 2 starts at 0 and 1 and is back at 1; 70 starts at 1 and is back the same period
  const plain: Row[] = [
    [0, 0, null, [1, 2], null],
    [1, 0, null, [2], [1, 2]],
    [3, 0, null, null, [1]],
    [1, 1, null, [70], [70]],
  ]

  it('counts each period and $ALL by offset, summing the chunks', async () => {
    const n = await count(64, {}, plain)
    expect([n(0, null, null), n(1, null, null), n(null, null, null)]).toEqual([2, 2, 3])
    expect([n(0, null, 0), n(0, null, 1), n(0, null, 2), n(0, null, 3)]).toEqual([undefined, 2, undefined, 1])
    // 2 back at +0 from period 1 in chunk 0, 70 in chunk 1; nobody at +2 (1 is back at 3, not a starter at 1)
    expect([n(1, null, 0), n(1, null, 1), n(1, null, 2)]).toEqual([2, undefined, 0])
    expect([n(null, null, 0), n(null, null, 1), n(null, null, 2), n(null, null, 3)]).toEqual([2, 2, 0, 1])
  })

  it('counts on or after: back at +k or any later offset, up to the last one with a return', async () => {
    const n = await count(64, { mode: 'onOrAfter' }, plain)
    expect([0, 1, 2, 3].map((k) => n(0, null, k))).toEqual([2, 2, 1, 1])
    expect([0, 1, 2, 3].map((k) => n(1, null, k))).toEqual([2, 0, 0, undefined])
    expect([0, 1, 2, 3].map((k) => n(null, null, k))).toEqual([3, 2, 1, 1])
  })

  // initial-event labels: 1 starts under a at 0; 2 under b at 0 and 1; returns carry no label
  const byFirst: Row[] = [
    [0, 0, 'a', [1], null],
    [0, 0, 'b', [2], null],
    [1, 0, 'b', [2], null],
    [1, 0, null, null, [1, 2]],
    [3, 0, null, null, [1]],
  ]

  it('splits the initial events by label, a label whose bitmaps met listed even with nobody back', async () => {
    const n = await count(4096, { breakdown: { side: 'first' } as RetentionRequest['breakdown'] }, byFirst)
    expect([n(null, null, null), n(null, 'a', null), n(null, 'b', null)]).toEqual([2, 1, 1])
    expect([0, 1, 2, 3].map((k) => n(null, 'a', k))).toEqual([undefined, 1, undefined, 1])
    expect([0, 1, 2, 3].map((k) => n(null, 'b', k))).toEqual([1, 1, 0, 0])
    expect([0, 1, 2, 3].map((k) => n(null, null, k))).toEqual([1, 2, 0, 1])
  })

  it('ORs each label with its later offsets for on or after', async () => {
    const n = await count(4096, { mode: 'onOrAfter', breakdown: { side: 'first' } as RetentionRequest['breakdown'] }, byFirst)
    expect([0, 1, 2, 3].map((k) => n(null, 'a', k))).toEqual([1, 1, 1, 1])
    expect([0, 1, 2, 3].map((k) => n(null, 'b', k))).toEqual([1, 1, 0, 0])
    expect([0, 1, 2, 3].map((k) => n(null, null, k))).toEqual([2, 2, 1, 1])
  })

  it('takes a bitmap of rows both initial and return events (the same event) as both', async () => {
    const one = [{ period: 0, w: 0, d: null, fr: 3, b: bytes(64, [5, 6]) }, { period: 1, w: 0, d: null, fr: 2, b: bytes(64, [6]) }]
    const cells = await countBitmaps({ mode: 'on', duration: 1, breakdown: null } as unknown as RetentionRequest, 64, one)
    expect([...cells.values()].map((c) => [c.s, c.k, c.n])).toEqual([[null, null, 2], [0, null, 2], [0, 0, 2], [0, 1, 1], [null, 0, 2], [null, 1, 1]])
  })

  it('splits the return events by label for a return-event breakdown, without starters per label', async () => {
    const rows: Row[] = [
      [0, 0, null, [1, 2], null],
      [1, 0, 'x', null, [1]],
      [1, 0, 'y', null, [2]],
      [2, 0, 'y', null, [1]],
    ]
    const n = await count(4096, { duration: 2, breakdown: { side: 'return' } as RetentionRequest['breakdown'] }, rows)
    expect([n(null, null, null), n(null, 'x', null), n(null, 'y', null)]).toEqual([2, undefined, undefined])
    expect([n(null, 'x', 1), n(null, 'y', 1), n(null, 'y', 2), n(null, null, 1), n(null, null, 2)]).toEqual([1, 1, 1, 2, 1])
  })
})

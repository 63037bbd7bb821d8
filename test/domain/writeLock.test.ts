import { describe, expect, it } from 'vitest'
import type { DomainContext } from '../../src-main/domain/context'
import { withWriteLock } from '../../src-main/domain/writeLock'

const ctx = { warehouse: {} } as DomainContext
const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms))

describe('project write lock', () => {
  it('runs the writers of one project one after another, in arrival order', async () => {
    const log: string[] = []
    const writer = (name: string) => withWriteLock(ctx, 'p', async () => {
      log.push(`${name} start`)
      await tick()
      log.push(`${name} end`)
    })
    await Promise.all([writer('a'), writer('b'), writer('c')])
    expect(log).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end'])
  })

  it('lets writers of different projects overlap', async () => {
    const log: string[] = []
    const writer = (p: string) => withWriteLock(ctx, p, async () => {
      log.push(`${p} start`)
      await tick()
      log.push(`${p} end`)
    })
    await Promise.all([writer('x'), writer('y')])
    expect(log).toEqual(['x start', 'y start', 'x end', 'y end'])
  })

  it('is re-entrant: work holding the lock can call work that takes it', async () => {
    const inner = await withWriteLock(ctx, 'r', () => withWriteLock(ctx, 'r', async () => 'inner ran'))
    expect(inner).toBe('inner ran')
  })

  it('gives up after waitMs when the lock stays taken, and the later work never runs', async () => {
    let release!: () => void
    const busy = withWriteLock(ctx, 'w', () => new Promise<void>((r) => (release = r)))
    let ran = false
    const waiting = withWriteLock(ctx, 'w', async () => {
      ran = true
    }, 20)
    await expect(waiting).rejects.toMatchObject({ status: 503 })
    release()
    await busy
    await tick(30)
    expect(ran).toBe(false)
  })

  it('keeps order after a writer fails', async () => {
    const failing = withWriteLock(ctx, 'f', async () => {
      throw new Error('boom')
    })
    const next = withWriteLock(ctx, 'f', async () => 'next ran')
    await expect(failing).rejects.toThrow('boom')
    expect(await next).toBe('next ran')
  })
})

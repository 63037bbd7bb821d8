import { beforeAll, describe, expect, it } from 'vitest'
import type { Ref } from 'vue'

/**
 * The renderer's helper for one run at a time that the user can cancel (stores/cancellableRun.ts;
 * the charts' analysis and the SQL query), run in Node: which run is current, what is settled,
 * progress, and what cancel and a newer start do to the run under way.
 */

type Work<T> = (signal: AbortSignal, report: (percent: number | null) => void) => Promise<T>
interface Run<K> {
  running: Ref<K | null>
  progress: Ref<number | null>
  live: (key: K) => boolean
  start: <T>(key: K, work: Work<T>, settle: { answer: (value: T) => void; failed: (error: Error) => void }) => Promise<void>
  cancel: () => void
}
let cancellableRun: <K>() => Run<K>

beforeAll(async () => {
  // the stores are the renderer's: imported by a path the Node type check does not follow
  ;({ cancellableRun } = await import(/* @vite-ignore */ '../../src-renderer/src/stores/cancellableRun'))
})

/** Work the test ends when it wants; it records its signal and can report progress. */
function works<T>() {
  const calls: { signal: AbortSignal; report: (p: number | null) => void; resolve: (v: T) => void; reject: (e: Error) => void }[] = []
  const work: Work<T> = (signal, report) => new Promise<T>((resolve, reject) => calls.push({ signal, report, resolve, reject }))
  return { calls, work }
}

/** Records what the store was told. */
function settled<T>() {
  const told: string[] = []
  return { told, settle: { answer: (v: T) => void told.push(`answer ${String(v)}`), failed: (e: Error) => void told.push(`failed ${e.message}`) } }
}

describe('cancellableRun', () => {
  it('a run says it is running with its key and its progress, settles its answer, then runs no more', async () => {
    const r = cancellableRun<string>()
    const { calls, work } = works<number>()
    const { told, settle } = settled<number>()
    const run = r.start('q1', work, settle)
    expect([r.running.value, r.progress.value, r.live('q1'), r.live('q2')]).toEqual(['q1', null, true, false])
    calls[0].report(40)
    expect(r.progress.value).toBe(40)
    calls[0].resolve(7)
    await run
    expect([told, r.running.value, r.live('q1'), calls[0].signal.aborted]).toEqual([['answer 7'], null, false, false])
    // progress is the current run's: a late line of an ended run changes nothing
    calls[0].report(90)
    expect(r.progress.value).toBe(40)
  })

  it('a failure of the current run is settled as failed', async () => {
    const r = cancellableRun<string>()
    const { calls, work } = works<number>()
    const { told, settle } = settled<number>()
    const run = r.start('q', work, settle)
    calls[0].reject(new Error('syntax'))
    await run
    expect([told, r.running.value]).toEqual([['failed syntax'], null])
  })

  it('a start aborts the run before it: that one is never settled, and progress starts again', async () => {
    const r = cancellableRun<string>()
    const { calls, work } = works<number>()
    const { told, settle } = settled<number>()
    const first = r.start('q1', work, settle)
    calls[0].report(50)
    const second = r.start('q2', work, settle)
    expect([calls[0].signal.aborted, r.running.value, r.progress.value, r.live('q1')]).toEqual([true, 'q2', null, false])
    calls[0].report(60)
    expect(r.progress.value).toBe(null)
    // the old one's answer (or failure) arriving late is dropped, and it does not end the new one
    calls[0].resolve(1)
    await first
    expect([told, r.running.value]).toEqual([[], 'q2'])
    calls[1].resolve(2)
    await second
    expect(told).toEqual(['answer 2'])

    const failing = r.start('q3', work, settle)
    const last = r.start('q4', work, settle)
    calls[2].reject(new Error('aborted'))
    await failing
    expect([told, r.running.value]).toEqual([['answer 2'], 'q4'])
    calls[3].resolve(4)
    await last
  })

  it('cancel aborts the run under way and ends it at once; what it answers later is dropped', async () => {
    const r = cancellableRun<string>()
    const { calls, work } = works<number>()
    const { told, settle } = settled<number>()
    const run = r.start('q', work, settle)
    r.cancel()
    expect([calls[0].signal.aborted, r.running.value, r.live('q')]).toEqual([true, null, false])
    calls[0].resolve(9)
    await run
    expect(told).toEqual([])

    const again = r.start('q', work, settle)
    r.cancel()
    calls[1].reject(new Error('The operation was aborted'))
    await again
    expect([told, r.running.value]).toEqual([[], null])
    // with nothing under way, cancel does nothing
    r.cancel()
    expect(r.running.value).toBe(null)
  })
})

import { createPinia, setActivePinia } from 'pinia'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { ComputedRef, Ref, ShallowRef } from 'vue'

/**
 * The renderer's helper for what a store reads for the current project (stores/projectResource.ts),
 * run in Node with a real pinia and the real session store (as the desktop preload sets it up):
 * which answers are kept, when `state` says loading, and the variants the stores ask for.
 */

// the session store reads the desktop preload's credentials from `window`
Object.assign(globalThis, { window: { ubaDesk: { apiBase: 'http://127.0.0.1:1', xtoken: 'x', appKey: 'A', token: 'ta' } }, location: { origin: 'http://127.0.0.1:1' } })

// the stores are the renderer's (DOM types): imported by a path the Node type check does not follow
type ProjectAuth = { apiBase: string; appKey: string; token: string }
interface Resource<T> {
  owner: Ref<string>
  data: ShallowRef<T>
  current: ComputedRef<T>
  state: Ref<string>
  error: Ref<Error | null>
  load: (read: (auth: ProjectAuth) => Promise<T>, again?: boolean) => Promise<void>
  drop: () => void
}
let projectResource: <T>(empty: T, options?: Record<string, unknown>) => Resource<T>
let keyedResource: <T>(empty: T) => Resource<T> & { key: Ref<string>; loadFor: (key: string, read: (auth: ProjectAuth) => Promise<T>) => Promise<void> }
let useSessionStore: () => { useProject: (appKey: string, token: string) => void }

const STORES = '../../src-renderer/src/stores/'
beforeAll(async () => {
  ;({ projectResource, keyedResource } = await import(/* @vite-ignore */ `${STORES}projectResource`))
  ;({ useSessionStore } = await import(/* @vite-ignore */ `${STORES}session`))
})
beforeEach(() => setActivePinia(createPinia()))

/** A read the test answers when it wants, recording which project it was for. */
function reads<T>() {
  const calls: { appKey: string; resolve: (v: T) => void; reject: (e: Error) => void }[] = []
  const read = (auth: ProjectAuth) => new Promise<T>((resolve, reject) => calls.push({ appKey: auth.appKey, resolve, reject }))
  return { calls, read }
}

const tick = () => new Promise((r) => setTimeout(r, 0))

describe('projectResource', () => {
  it('by default keeps the answer for the project it was read for, and drops one the user has left', async () => {
    const r = projectResource<string[]>([])
    const { calls, read } = reads<string[]>()
    const first = r.load(read)
    expect(r.state.value).toBe('loading')
    calls[0].resolve(['a'])
    await first
    expect([r.state.value, r.current.value, r.owner.value]).toEqual(['ready', ['a'], 'A'])

    // a read again keeps what is shown and says nothing of loading
    const again = r.load(read)
    expect(r.state.value).toBe('ready')
    calls[1].reject(new Error('busy'))
    await again
    expect([r.state.value, r.error.value?.message, r.current.value]).toEqual(['error', 'busy', ['a']])

    // an answer arriving after a switch is dropped; the other project sees `empty`
    const late = r.load(read)
    useSessionStore().useProject('B', 'tb')
    calls[2].resolve(['late'])
    await late
    expect([r.owner.value, r.current.value]).toEqual(['A', []])
    const b = r.load(read)
    expect([calls[3].appKey, r.state.value]).toEqual(['B', 'loading'])
    calls[3].resolve(['b'])
    await b
    expect([r.state.value, r.current.value, r.error.value]).toEqual(['ready', ['b'], null])
  })

  it('reads nothing without a project, nor without a token when it needs one', async () => {
    const session = useSessionStore()
    const r = projectResource<number>(0, { needsToken: true })
    const { calls, read } = reads<number>()
    session.useProject('A', '')
    await r.load(read)
    session.useProject('', '')
    await r.load(read)
    expect([calls.length, r.state.value]).toEqual([0, 'idle'])
  })

  it("switchOn 'read': a read for another project empties it at once; an answer is dropped only when a newer read is for another project", async () => {
    const session = useSessionStore()
    let switches = 0
    const r = projectResource<string[]>([], { switchOn: 'read', onSwitch: () => switches++ })
    const { calls, read } = reads<string[]>()
    const a = r.load(read)
    calls[0].resolve(['a'])
    await a
    session.useProject('B', 'tb')
    const b = r.load(read)
    expect([r.owner.value, r.data.value, r.state.value, switches]).toEqual(['B', [], 'loading', 2])
    // the user goes back to A before B's answer: B's answer is still B's and kept
    session.useProject('A', 'ta')
    calls[1].resolve(['b'])
    await b
    expect([r.owner.value, r.data.value, r.current.value]).toEqual(['B', ['b'], []])
    // a read for A began after this one for B: B's late answer is dropped
    session.useProject('B', 'tb')
    const b2 = r.load(read)
    session.useProject('A', 'ta')
    const a2 = r.load(read)
    calls[2].resolve(['b2'])
    calls[3].resolve(['a2'])
    await Promise.all([b2, a2])
    expect([r.owner.value, r.data.value]).toEqual(['A', ['a2']])
  })

  it('shared: loads share the read under way and the last good one; again and an error read anew', async () => {
    const r = projectResource<number>(0, { shared: true })
    const { calls, read } = reads<number>()
    const one = r.load(read)
    const two = r.load(read)
    expect(calls.length).toBe(1)
    calls[0].resolve(1)
    await Promise.all([one, two])
    await r.load(read)
    expect(calls.length).toBe(1)
    const again = r.load(read, true)
    calls[1].reject(new Error('down'))
    await again
    expect(r.state.value).toBe('error')
    const retry = r.load(read)
    expect(calls.length).toBe(3)
    calls[2].resolve(3)
    await retry
    expect([r.state.value, r.current.value]).toEqual(['ready', 3])
  })

  it("loadingOn 'always' says loading on every read; 'unlessShown' unless a ready answer is shown", async () => {
    const always = projectResource<number>(0, { loadingOn: 'always' })
    const unless = projectResource<number>(0, { loadingOn: 'unlessShown' })
    const { calls, read } = reads<number>()
    for (const r of [always, unless]) {
      const p = r.load(read)
      calls[calls.length - 1].resolve(1)
      await p
    }
    const p1 = always.load(read)
    const p2 = unless.load(read)
    expect([always.state.value, unless.state.value]).toEqual(['loading', 'ready'])
    calls[2].reject(new Error('x'))
    calls[3].reject(new Error('y'))
    await Promise.all([p1, p2])
    // after an error nothing ready is shown: 'unlessShown' says loading again
    const p3 = unless.load(read)
    expect(unless.state.value).toBe('loading')
    calls[4].resolve(2)
    await p3
  })

  it('keepOnRefreshError: a failed refresh of a shown answer stays ready with the error; a failed first read is an error', async () => {
    const r = projectResource<number>(0, { keepOnRefreshError: true })
    const { calls, read } = reads<number>()
    const first = r.load(read)
    calls[0].reject(new Error('first'))
    await first
    expect(r.state.value).toBe('error')
    const ok = r.load(read)
    calls[1].resolve(5)
    await ok
    const refresh = r.load(read)
    calls[2].reject(new Error('refresh'))
    await refresh
    await tick()
    expect([r.state.value, r.error.value?.message, r.current.value]).toEqual(['ready', 'refresh', 5])
  })

  it('after: runs once an answer or error is kept, and the load (shared too) waits for it; not for a dropped answer', async () => {
    const session = useSessionStore()
    const done: string[] = []
    const r = projectResource<string>('', { switchOn: 'read', shared: true, after: async () => void done.push(r.error.value?.message ?? r.data.value) })
    const { calls, read } = reads<string>()
    const one = r.load(read)
    const two = r.load(read)
    calls[0].resolve('a')
    await two
    expect(done).toEqual(['a'])
    await one
    const failing = r.load(read, true)
    calls[1].reject(new Error('down'))
    await failing
    expect(done).toEqual(['a', 'down'])
    // a read for B started after this one for A: A's answer is dropped, and nothing follows it
    const a = r.load(read, true)
    session.useProject('B', 'tb')
    const b = r.load(read)
    calls[2].resolve('late')
    await a
    calls[3].resolve('b')
    await b
    expect(done).toEqual(['a', 'down', 'b'])
  })

  it('newestWins: a later read supersedes one in flight (its answer and error are dropped); a read clears the last error', async () => {
    const r = projectResource<string>('', { newestWins: true, loadingOn: 'always' })
    const { calls, read } = reads<string>()
    const older = r.load(read)
    const newer = r.load(read)
    calls[1].resolve('new')
    calls[0].resolve('old')
    await Promise.all([older, newer])
    expect([r.state.value, r.data.value]).toEqual(['ready', 'new'])

    const failing = r.load(read)
    const next = r.load(read)
    calls[2].reject(new Error('superseded'))
    await failing
    expect([r.state.value, r.error.value]).toEqual(['loading', null])
    calls[3].reject(new Error('down'))
    await next
    expect([r.state.value, r.error.value?.message, r.data.value]).toEqual(['error', 'down', 'new'])
    // the next read starts without the error of the one before
    const retry = r.load(read)
    expect([r.state.value, r.error.value]).toEqual(['loading', null])
    calls[4].resolve('again')
    await retry
    expect([r.state.value, r.data.value]).toEqual(['ready', 'again'])
  })

  it('without newestWins reads do not supersede each other: the last answer to arrive is kept', async () => {
    const r = projectResource<string>('')
    const { calls, read } = reads<string>()
    const one = r.load(read)
    const two = r.load(read)
    calls[1].resolve('two')
    calls[0].resolve('one')
    await Promise.all([one, two])
    expect(r.data.value).toBe('one')
  })

  it('forgetOnError: a failed read empties what was kept', async () => {
    const r = projectResource<string>('', { forgetOnError: true })
    const { calls, read } = reads<string>()
    const ok = r.load(read)
    calls[0].resolve('a')
    await ok
    const failing = r.load(read)
    calls[1].reject(new Error('gone'))
    await failing
    expect([r.state.value, r.error.value?.message, r.data.value]).toEqual(['error', 'gone', ''])
  })

  it('drop: forgets the answer and error, and the read in flight (with or without newestWins) is dropped', async () => {
    const done: string[] = []
    for (const newestWins of [false, true]) {
      const r = projectResource<string>('', { newestWins, after: async () => void done.push(r.data.value) })
      const { calls, read } = reads<string>()
      const failing = r.load(read)
      calls[0].reject(new Error('down'))
      await failing
      const late = r.load(read)
      r.drop()
      expect([r.state.value, r.error.value, r.data.value]).toEqual(['idle', null, ''])
      calls[1].resolve('late')
      await late
      expect([r.state.value, r.data.value]).toEqual(['idle', ''])
      // a read after the drop is kept as usual
      const next = r.load(read)
      calls[2].resolve('next')
      await next
      expect([r.state.value, r.data.value]).toEqual(['ready', 'next'])
    }
    expect(done).toEqual(['', 'next', '', 'next'])
  })

  it('drop ends a shared read: the next load reads anew', async () => {
    const r = projectResource<number>(0, { shared: true })
    const { calls, read } = reads<number>()
    const first = r.load(read)
    calls[0].resolve(1)
    await first
    r.drop()
    const again = r.load(read)
    expect(calls.length).toBe(2)
    calls[1].resolve(2)
    await again
    expect(r.current.value).toBe(2)
  })

  it('keyedResource: another key forgets the list before, drops its read and says loading; the same key reads again in place', async () => {
    const r = keyedResource<string[]>([])
    const { calls, read } = reads<string[]>()
    const a = r.loadFor('a', read)
    calls[0].resolve(['a1'])
    await a
    const again = r.loadFor('a', read)
    expect([r.state.value, r.data.value]).toEqual(['ready', ['a1']])
    calls[1].reject(new Error('busy'))
    await again
    expect([r.state.value, r.error.value?.message]).toEqual(['error', 'busy'])
    const lateA = r.loadFor('a', read)
    const b = r.loadFor('b', read)
    expect([r.key.value, r.state.value, r.data.value, r.error.value]).toEqual(['b', 'loading', [], null])
    calls[2].resolve(['a2'])
    await lateA
    expect([r.state.value, r.data.value]).toEqual(['loading', []])
    calls[3].resolve(['b1'])
    await b
    expect([r.key.value, r.state.value, r.data.value]).toEqual(['b', 'ready', ['b1']])
  })
})

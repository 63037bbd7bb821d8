import { createPinia, setActivePinia } from 'pinia'
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { ComputedRef, Ref } from 'vue'

/**
 * The renderer's helper for a job a store follows by polling (stores/followedJob.ts; the sample
 * data and file import stores), run in Node with a real pinia and the real session store: what it
 * shows of the job, when it polls and stops, the ten failed polls, cancel and dismiss.
 */

// the session store reads the desktop preload's credentials from `window`
Object.assign(globalThis, { window: { ubaDesk: { apiBase: 'http://127.0.0.1:1', xtoken: 'x', appKey: 'A', token: 'ta' } }, location: { origin: 'http://127.0.0.1:1' } })

type ProjectAuth = { apiBase: string; appKey: string; token: string }
interface Job {
  id: string
  kind: string
  state: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled'
  percent: number
}
interface Followed {
  current: ComputedRef<Job | null>
  running: ComputedRef<boolean>
  percent: Ref<number>
  error: Ref<Error | null>
  cancelling: Ref<boolean>
  adopt: (auth: ProjectAuth, job: Job) => void
  follow: (auth: ProjectAuth, job: Job) => void
  cancel: () => Promise<void>
  dismiss: () => void
}
type Read = (auth: ProjectAuth, id: string) => Promise<Job>
let followedJob: (options: { everyMs: number; get: Read; stop: Read; ended?: (job: Job) => void }) => Followed
let useSessionStore: () => { projectAuth: ProjectAuth; useProject: (appKey: string, token: string) => void }

const STORES = '../../src-renderer/src/stores/'
beforeAll(async () => {
  ;({ followedJob } = await import(/* @vite-ignore */ `${STORES}followedJob`))
  ;({ useSessionStore } = await import(/* @vite-ignore */ `${STORES}session`))
})
beforeEach(() => setActivePinia(createPinia()))

const job = (id: string, state: Job['state'], percent: number): Job => ({ id, kind: 'sample', state, percent })

/** The server's answers to the polls, in order (a string is a failed read); records each poll. */
function server(answers: (Job | string)[]) {
  const polls: string[] = []
  const get: Read = async (auth, id) => {
    polls.push(`${auth.appKey}:${id}`)
    const next = answers.shift()
    if (next === undefined) throw new Error('no more answers')
    if (typeof next === 'string') throw new Error(next)
    return next
  }
  return { polls, get }
}

const stopNever: Read = async () => {
  throw new Error('not asked')
}

describe('followedJob', () => {
  it('polls a job until it ends; percent never goes back, is 100 on success, and `ended` hears of it once', async () => {
    const session = useSessionStore()
    const ended: Job[] = []
    // each poll waits for the test to answer it
    const polls: ((j: Job) => void)[] = []
    const get: Read = () => new Promise<Job>((resolve) => polls.push(resolve))
    const f = followedJob({ everyMs: 1, get, stop: stopNever, ended: (j) => ended.push(j) })
    f.follow(session.projectAuth, job('j1', 'queued', 0))
    expect([f.running.value, f.percent.value]).toEqual([true, 0])
    await vi.waitFor(() => expect(polls.length).toBe(1))
    polls[0](job('j1', 'running', 20))
    await vi.waitFor(() => expect(polls.length).toBe(2))
    expect(f.percent.value).toBe(20)
    polls[1](job('j1', 'running', 5))
    await vi.waitFor(() => expect(polls.length).toBe(3))
    expect([f.percent.value, f.current.value?.percent]).toEqual([20, 5])
    polls[2](job('j1', 'succeeded', 90))
    await vi.waitFor(() => expect(f.current.value?.state).toBe('succeeded'))
    expect([f.percent.value, f.running.value, ended.map((j) => j.state)]).toEqual([100, false, ['succeeded']])
    await new Promise((r) => setTimeout(r, 20))
    expect(polls.length).toBe(3)

    // another job starts from 0 again
    f.adopt(session.projectAuth, job('j2', 'failed', 30))
    expect([f.percent.value, ended.length]).toEqual([30, 2])
  })

  it('a job belongs to its project: hidden in another, polled with its own, and no `ended` there', async () => {
    const session = useSessionStore()
    const ended: Job[] = []
    const { polls, get } = server([job('j1', 'running', 50), job('j1', 'succeeded', 100)])
    const f = followedJob({ everyMs: 1, get, stop: stopNever, ended: (j) => ended.push(j) })
    f.follow(session.projectAuth, job('j1', 'running', 10))
    session.useProject('B', 'tb')
    expect([f.current.value, f.running.value]).toEqual([null, false])
    await vi.waitFor(() => expect(polls.length).toBe(2))
    await new Promise((r) => setTimeout(r, 20))
    expect([polls, ended]).toEqual([['A:j1', 'A:j1'], []])
    session.useProject('A', 'ta')
    expect(f.current.value?.state).toBe('succeeded')
  })

  it('failed polls are retried; ten in a row give the job up with the error; following anew forgets them', async () => {
    const session = useSessionStore()
    const nine = Array.from({ length: 9 }, (_, i) => `busy ${i + 1}`)
    const answers: (Job | string)[] = [...nine, job('j1', 'running', 40), ...nine, 'down']
    const { polls, get } = server(answers)
    const f = followedJob({ everyMs: 1, get, stop: stopNever })
    f.follow(session.projectAuth, job('j1', 'running', 0))
    await vi.waitFor(() => expect(f.error.value?.message).toBe('down'))
    await new Promise((r) => setTimeout(r, 20))
    expect([polls.length, f.percent.value, f.running.value]).toEqual([20, 40, true])

    // a job followed afresh gets ten tries of its own, and the error of the one before goes
    answers.push('busy', job('j3', 'succeeded', 100))
    f.follow(session.projectAuth, job('j3', 'running', 0))
    expect(f.error.value).toBe(null)
    await vi.waitFor(() => expect(f.current.value?.state).toBe('succeeded'))
    expect([f.error.value, polls.length]).toEqual([null, 22])
  })

  it('cancel asks the server and shows its answer; a refusal is the error; nothing to cancel without a job', async () => {
    const session = useSessionStore()
    const asked: string[] = []
    let refuse = true
    const stop: Read = async (auth, id) => {
      asked.push(`${auth.appKey}:${id}`)
      if (refuse) throw new Error('already ended')
      return job(id, 'cancelled', 60)
    }
    const f = followedJob({ everyMs: 60_000, get: server([]).get, stop })
    await f.cancel()
    expect(asked).toEqual([])
    f.follow(session.projectAuth, job('j1', 'running', 60))
    const refused = f.cancel()
    expect(f.cancelling.value).toBe(true)
    await refused
    expect([f.cancelling.value, f.error.value?.message, f.running.value]).toEqual([false, 'already ended', true])
    refuse = false
    await f.cancel()
    expect([asked, f.current.value?.state, f.running.value]).toEqual([['A:j1', 'A:j1'], 'cancelled', false])
  })

  it('dismiss forgets an ended job, its error and percent; a running one stays', async () => {
    const session = useSessionStore()
    const f = followedJob({ everyMs: 60_000, get: server([]).get, stop: stopNever })
    f.follow(session.projectAuth, job('j1', 'running', 30))
    f.dismiss()
    expect([f.current.value?.id, f.percent.value]).toEqual(['j1', 30])
    f.adopt(session.projectAuth, job('j1', 'failed', 30))
    f.error.value = new Error('x')
    f.dismiss()
    expect([f.current.value, f.error.value, f.percent.value]).toEqual([null, null, 0])
  })
})

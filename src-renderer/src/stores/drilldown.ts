import { defineStore } from 'pinia'
import { ref, shallowRef, watch } from 'vue'
import { ApiError, type ProjectAuth } from '../api/http'
import { cohortMembers, createCohort, deleteCohort, listCohorts, type CohortMember, type CreatedCohort } from '../api/cohorts'
import type { Drill, DrillTarget } from '../views/Charts/drilldown/target'
import { noteMine } from '../views/Cohorts/model/creator'
import { useMetaStore } from './meta'
import { useSessionStore } from './session'

export type DrillPhase = 'idle' | 'refused' | 'finding' | 'ready' | 'error'

/** How often the cohort is read again while it is being computed. */
const POLL_MS = 500
export const PAGE_SIZE = 50

function pendingKey(appKey: string): string {
  return `uba-desk.drilldown.pending.${appKey}`
}

function readPending(appKey: string): number[] {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(pendingKey(appKey)) ?? '[]')
    return Array.isArray(value) ? value.filter((v): v is number => Number.isInteger(v)) : []
  } catch {
    return []
  }
}

function writePending(appKey: string, ids: number[]): void {
  try {
    if (ids.length > 0) localStorage.setItem(pendingKey(appKey), JSON.stringify(ids))
    else localStorage.removeItem(pendingKey(appKey))
  } catch {
    // storage disabled: a cohort left by a closed window stays until deleted in the Cohorts view
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function lockName(appKey: string, id: number): string {
  return `uba-desk.drilldown.${appKey}.${id}`
}

/**
 * Marks a temporary cohort as in use by this window (a Web Lock, released by the returned
 * function), so that another window's sweep leaves it alone.
 */
function hold(appKey: string, id: number): () => void {
  let done = false
  let free: (() => void) | null = null
  void navigator.locks?.request(lockName(appKey, id), () => (done ? undefined : new Promise<void>((resolve) => (free = resolve))))
  return () => {
    done = true
    free?.()
  }
}

/**
 * The drill-down open over the charts: the users behind one point, found through a temporary
 * static cohort. The cohort is deleted when the panel closes unless it is kept. Its id is noted
 * in localStorage until then, so that one left behind by a closed window is deleted the next
 * time a drill-down opens. The drill-down lives here, not in the panel, so that it is still
 * open after a visit to a user's profile.
 */
export const useDrilldownStore = defineStore('drilldown', () => {
  const session = useSessionStore()
  const meta = useMetaStore()

  const phase = ref<DrillPhase>('idle')
  const title = ref('')
  const reason = ref('')
  const target = shallowRef<DrillTarget | null>(null)
  const cohort = shallowRef<CreatedCohort | null>(null)
  const count = ref<number | null>(null)
  const users = shallowRef<CohortMember[]>([])
  const loadingMore = ref(false)
  const error = shallowRef<Error | null>(null)
  const kept = ref(false)
  let auth: ProjectAuth | null = null
  let generation = 0
  let release = (): void => {}

  function note(appKey: string, id: number, add: boolean): void {
    const ids = readPending(appKey).filter((v) => v !== id)
    writePending(appKey, add ? [...ids, id] : ids)
  }

  async function discard(owner: ProjectAuth, id: number): Promise<void> {
    try {
      await deleteCohort(owner, id)
      note(owner.appKey, id, false)
      // the Charts' crowd picker may list it (read while the drill-down was open)
      if (meta.owner === owner.appKey) meta.dropCrowd(id)
    } catch (err) {
      // already gone: nothing to keep track of; otherwise it stays noted for the next sweep
      if (err instanceof ApiError && err.status === 400) note(owner.appKey, id, false)
    }
  }

  /** Deletes the temporary cohorts a closed window left behind (those no open window holds). */
  async function sweep(owner: ProjectAuth): Promise<void> {
    const held = new Set(((await navigator.locks?.query())?.held ?? []).map((lock) => lock.name))
    await Promise.all(readPending(owner.appKey).filter((id) => !held.has(lockName(owner.appKey, id))).map((id) => discard(owner, id)))
  }

  /** A name no cohort of the project has: the target's, else with " (2)", " (3)"… */
  function uniqueName(base: string, taken: Set<string>): string {
    let name = base
    for (let n = 2; taken.has(name); n++) name = `${base} (${n})`
    return name
  }

  async function create(owner: ProjectAuth, t: DrillTarget): Promise<CreatedCohort> {
    const taken = new Set((await listCohorts(owner)).map((c) => c.name))
    for (;;) {
      const name = uniqueName(t.name, taken)
      try {
        return await createCohort(owner, { name, dynamic: 0, content: t.content })
      } catch (err) {
        // another window took the name meanwhile (501/50101): try the next one
        if (!(err instanceof ApiError && err.code === 50101)) throw err
        taken.add(name)
      }
    }
  }

  async function loadPage(owner: ProjectAuth, code: string, page: number): Promise<{ count: number; users: CohortMember[] }> {
    const answer = await cohortMembers(owner, { cohortCode: code, page, pageSize: PAGE_SIZE, properties: [] })
    return { count: answer.count, users: answer.users }
  }

  async function find(own: number, owner: ProjectAuth, t: DrillTarget): Promise<void> {
    await sweep(owner)
    const created = await create(owner, t)
    note(owner.appKey, created.id, true)
    if (own !== generation) {
      await discard(owner, created.id)
      return
    }
    cohort.value = created
    release = hold(owner.appKey, created.id)
    for (;;) {
      const found = (await listCohorts(owner)).find((c) => c.id === created.id)
      if (own !== generation) return
      if (!found) throw new Error('The temporary cohort was deleted elsewhere.')
      if (found.status === 'failed') throw new Error(`The users could not be found: ${found.failReason ?? 'the computation failed'}.`)
      if (found.status === 'success') break
      await sleep(POLL_MS)
    }
    const first = await loadPage(owner, created.code, 1)
    if (own !== generation) return
    count.value = first.count
    users.value = first.users
    phase.value = 'ready'
  }

  /** Opens the drill-down of a point; the one open before is closed (its cohort deleted unless kept). */
  async function open(drill: Drill): Promise<void> {
    // close() counts a new generation before its first await: a later open() outdates this one
    const closing = close()
    const own = generation
    await closing
    if (own !== generation) return
    title.value = drill.ok ? drill.target.title : drill.title
    if (!drill.ok) {
      reason.value = drill.reason
      phase.value = 'refused'
      return
    }
    target.value = drill.target
    phase.value = 'finding'
    const owner = session.projectAuth
    auth = owner
    try {
      await find(own, owner, drill.target)
    } catch (err) {
      if (own !== generation) return
      error.value = err as Error
      phase.value = 'error'
    }
  }

  async function retry(): Promise<void> {
    const t = target.value
    if (t) await open({ ok: true, target: t })
  }

  async function more(): Promise<void> {
    const c = cohort.value
    if (!c || !auth || loadingMore.value || users.value.length >= (count.value ?? 0)) return
    const own = generation
    loadingMore.value = true
    try {
      const next = await loadPage(auth, c.code, Math.floor(users.value.length / PAGE_SIZE) + 1)
      if (own === generation) users.value = [...users.value, ...next.users]
    } catch (err) {
      if (own === generation) error.value = err as Error
    } finally {
      if (own === generation) loadingMore.value = false
    }
  }

  /** Keeps the cohort: it stays in the Cohorts view and among the charts' crowds. */
  function keep(): void {
    const c = cohort.value
    if (!c || !auth) return
    kept.value = true
    note(auth.appKey, c.id, false)
    noteMine(auth.appKey, c.id)
    if (meta.owner === auth.appKey) void meta.loadCrowds()
  }

  /** Closes the panel; a cohort still being created is deleted once it exists. */
  async function close(): Promise<void> {
    generation += 1
    const c = cohort.value
    const owner = auth
    const keepIt = kept.value
    phase.value = 'idle'
    title.value = ''
    reason.value = ''
    target.value = null
    cohort.value = null
    count.value = null
    users.value = []
    error.value = null
    kept.value = false
    loadingMore.value = false
    auth = null
    release()
    release = () => {}
    if (c && owner && !keepIt) await discard(owner, c.id)
  }

  // another project: the drill-down was about the one before
  watch(
    () => session.appKey,
    () => void close(),
  )

  return { phase, title, reason, target, cohort, count, users, loadingMore, error, kept, open, retry, more, keep, close }
})

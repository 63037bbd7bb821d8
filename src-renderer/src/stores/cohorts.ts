import { defineStore } from 'pinia'
import { computed, ref, shallowRef } from 'vue'
import {
  cohortMembers,
  createCohort,
  deleteCohort,
  exportCohortMembers,
  listCohorts,
  recalculateCohort,
  type Cohort,
  type CreatedCohort,
  type FileCohort,
  type MembersPage,
  type MembersQuery,
  type NewCohort,
} from '../api/cohorts'
import type { ExportFormat } from '../api/people'
import { createFileCohort } from '../api/cohortFiles'
import { saveFile } from '../desktop'
import { noteMine } from '../models/cohorts/creator'
import { useMetaStore } from './meta'
import { projectResource, type LoadState } from './projectResource'
import { useSessionStore } from './session'
import { streamedExport, type StreamedExport } from './streamedExport'

/** How often the list is read again while a cohort is being computed. */
export const POLL_MS = 1200

export type MembersExport = StreamedExport & { format: ExportFormat }

function columnsKey(appKey: string): string {
  return `uba-desk.cohorts.columns.${appKey}`
}

/**
 * The project's cohorts, kept current: while a view follows the list and a cohort is calculating,
 * the list is read again every POLL_MS, and polling stops as soon as none is. Also one cohort's
 * members, a page at a time, and their export.
 */
export const useCohortStore = defineStore('cohorts', () => {
  const session = useSessionStore()
  const meta = useMetaStore()

  // a switch empties the list at once; a failed refresh keeps the list on screen (the view says it may be out of date)
  const listing = projectResource<Cohort[]>([], { needsToken: true, switchOn: 'read', loadingOn: 'unlessShown', keepOnRefreshError: true, onSwitch: resetMembers })
  const { owner, data: list, state, error } = listing
  const calculating = computed(() => list.value.some((c) => c.status === 'calculating'))
  const polling = ref(false)
  let followers = 0
  let timer: ReturnType<typeof setTimeout> | undefined

  const members = shallowRef<MembersPage | null>(null)
  const membersQuery = shallowRef<MembersQuery | null>(null)
  const membersState = ref<LoadState>('idle')
  const membersError = ref<Error | null>(null)
  let membersController: AbortController | null = null

  const { download, start: startExport, cancel: cancelExport } = streamedExport<{ format: ExportFormat }>()

  function resetMembers(): void {
    members.value = null
    membersQuery.value = null
    membersState.value = 'idle'
    membersController?.abort()
    cancelExport()
    download.value = null
  }

  function schedule(): void {
    clearTimeout(timer)
    timer = undefined
    polling.value = followers > 0 && calculating.value && state.value !== 'error'
    if (polling.value) timer = setTimeout(() => void load(), POLL_MS)
  }

  /** Reads the list; a list already shown stays on screen while it is read again. */
  async function load(): Promise<void> {
    const auth = session.projectAuth
    await listing.load(listCohorts)
    // polling goes on for a list that was read (not without a token, nor after a switch)
    if (auth.token && owner.value === auth.appKey) schedule()
  }

  /** A view that shows cohorts follows the list: it is polled while one is calculating. */
  function follow(): () => void {
    followers += 1
    schedule()
    let stopped = false
    return () => {
      if (stopped) return
      stopped = true
      followers -= 1
      schedule()
    }
  }

  function byId(id: number): Cohort | undefined {
    return list.value.find((c) => c.id === id)
  }

  /** Charts offer cohorts as crowds: their list changes with ours. */
  function cohortsChanged(): void {
    if (meta.owner === owner.value && meta.state !== 'idle') void meta.loadCrowds()
  }

  async function create(input: NewCohort): Promise<CreatedCohort> {
    const created = await createCohort(session.projectAuth, input)
    noteMine(session.appKey, created.id)
    await load()
    cohortsChanged()
    return created
  }

  async function createFromFile(input: { name: string; property: string; file: File }): Promise<FileCohort> {
    const created = await createFileCohort(session.projectAuth, input)
    noteMine(session.appKey, created.id)
    await load()
    cohortsChanged()
    return created
  }

  async function recalculate(id: number): Promise<void> {
    await recalculateCohort(session.projectAuth, id)
    list.value = list.value.map((c) => (c.id === id ? { ...c, status: 'calculating' as const } : c))
    schedule()
  }

  async function remove(id: number): Promise<void> {
    await deleteCohort(session.projectAuth, id)
    list.value = list.value.filter((c) => c.id !== id)
    schedule()
    cohortsChanged()
  }

  /** The member columns last chosen in this project; null: none chosen yet. */
  function savedColumns(): string[] | null {
    try {
      const value: unknown = JSON.parse(localStorage.getItem(columnsKey(owner.value)) ?? 'null')
      return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : null
    } catch {
      return null
    }
  }

  function saveColumns(columns: string[]): void {
    try {
      localStorage.setItem(columnsKey(owner.value), JSON.stringify(columns))
    } catch {
      // storage disabled: the choice lasts until the page is closed
    }
  }

  /** One page of members; a newer request makes an older one stale. */
  async function loadMembers(query: MembersQuery): Promise<void> {
    membersController?.abort()
    const controller = new AbortController()
    membersController = controller
    const auth = session.projectAuth
    membersQuery.value = query
    membersState.value = 'loading'
    membersError.value = null
    try {
      const page = await cohortMembers(auth, query, { signal: controller.signal })
      if (membersController !== controller) return
      members.value = page
      membersState.value = 'ready'
    } catch (err) {
      if (membersController !== controller) return
      membersError.value = err as Error
      membersState.value = 'error'
    } finally {
      if (membersController === controller) membersController = null
    }
  }

  /** Downloads every member as JSON lines or CSV (a file named after the cohort). */
  async function exportMembers(cohort: Cohort, properties: string[], format: ExportFormat = 'json'): Promise<void> {
    if (download.value?.state === 'running') return
    const auth = session.projectAuth
    const file = await startExport({ format }, (signal) => exportCohortMembers(auth, { cohortCode: cohort.code, properties }, format, { signal }))
    if (file) await saveFile(file, `${cohort.name}.${format === 'csv' ? 'csv' : 'jsonl'}`)
  }

  function clearMembers(): void {
    membersController?.abort()
    members.value = null
    membersQuery.value = null
    membersState.value = 'idle'
    download.value = null
  }

  return {
    owner,
    list,
    state,
    error,
    calculating,
    polling,
    load,
    follow,
    byId,
    create,
    createFromFile,
    recalculate,
    remove,
    members,
    membersQuery,
    membersState,
    membersError,
    loadMembers,
    clearMembers,
    savedColumns,
    saveColumns,
    download,
    exportMembers,
    cancelExport,
  }
})

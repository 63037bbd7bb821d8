import { defineStore } from 'pinia'
import { computed, ref, shallowRef, watch } from 'vue'
import { cellUsers, exportCellUsers, saveCellCohort, type CellQuery, type CellUser, type SavedCellCohort } from '../api/cellUsers'
import { readStream } from '../api/http'
import type { AnalysisRequests } from '../api/analysis'
import type { CellTarget } from '../models/charts/cellTarget'
import { noteMine } from '../models/cohorts/creator'
import { downloadBlob, fileName } from '../download'
import { useMetaStore } from './meta'
import { projectResource } from './projectResource'
import { useSessionStore } from './session'

export const CELL_PAGE_SIZE = 50

/** A page of the users and how many there are in all. */
interface CellPage {
  count: number | null
  users: CellUser[]
  page: number
}

/**
 * The users behind one cell of any analysis's table or chart, read from
 * the server (it lists exactly the users it counted): a page at a time, the whole list as CSV, and
 * a static cohort of them. Kept here, not in the panel, so it is still open after a visit to People.
 */
export const useCellUsersStore = defineStore('cellUsers', () => {
  const session = useSessionStore()
  const meta = useMetaStore()

  const target = shallowRef<CellTarget | null>(null)
  /** The analysis request the answer on screen was computed from. */
  const body = shallowRef<AnalysisRequests[keyof AnalysisRequests] | null>(null)
  const choice = ref(0)
  const answer = projectResource<CellPage>({ count: null, users: [], page: 1 }, { newestWins: true, loadingOn: 'always' })
  const { state: phase, error } = answer
  const count = computed(() => answer.data.value.count)
  const users = computed(() => answer.data.value.users)
  const page = computed(() => answer.data.value.page)
  const saved = shallowRef<SavedCellCohort | null>(null)
  const saving = ref(false)
  const exporting = ref(false)

  function query(): CellQuery | null {
    const t = target.value
    const cell = t?.choices[choice.value]?.cell
    return t && body.value && cell ? { kind: t.kind, body: body.value, cell } : null
  }

  function load(n: number): Promise<void> {
    const q = query()
    if (!q) return Promise.resolve()
    return answer.load(async (auth) => {
      const { count, users } = await cellUsers(auth, q, n, CELL_PAGE_SIZE)
      return { count, users, page: n }
    })
  }

  function open(t: CellTarget, request: AnalysisRequests[keyof AnalysisRequests]): void {
    target.value = t
    body.value = request
    choice.value = 0
    saved.value = null
    answer.data.value = { count: null, users: [], page: page.value }
    void load(1)
  }

  function choose(index: number): void {
    if (index === choice.value) return
    choice.value = index
    saved.value = null
    void load(1)
  }

  async function exportCsv(): Promise<void> {
    const q = query()
    const t = target.value
    if (!q || !t || exporting.value) return
    exporting.value = true
    try {
      const controller = new AbortController()
      const file = await readStream(await exportCellUsers(session.projectAuth, q, controller.signal), () => undefined, controller.signal)
      downloadBlob(fileName(t.choices[choice.value].label + ' ' + t.segment, 'csv'), file)
    } catch (err) {
      error.value = err as Error
    } finally {
      exporting.value = false
    }
  }

  /** Saves the users as a static cohort named `name`; a refusal (name in use) is thrown to the caller. */
  async function save(name: string): Promise<void> {
    const q = query()
    if (!q || saving.value) return
    saving.value = true
    try {
      const owner = session.projectAuth
      const cohort = await saveCellCohort(owner, q, name)
      saved.value = cohort
      noteMine(owner.appKey, cohort.id)
      if (meta.owner === owner.appKey) void meta.loadCrowds()
    } finally {
      saving.value = false
    }
  }

  function close(): void {
    answer.drop()
    target.value = null
    body.value = null
    saved.value = null
  }

  // another project: the cell was about the one before
  watch(
    () => session.appKey,
    () => close(),
  )

  return { target, choice, phase, count, users, page, error, saved, saving, exporting, open, choose, load, exportCsv, save, close }
})

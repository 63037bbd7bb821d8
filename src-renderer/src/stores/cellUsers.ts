import { defineStore } from 'pinia'
import { ref, shallowRef, watch } from 'vue'
import { cellUsers, exportCellUsers, saveCellCohort, type CellQuery, type CellUser, type SavedCellCohort } from '../api/cellUsers'
import { readStream } from '../api/http'
import type { AnalysisRequests } from '../api/analysis'
import type { CellTarget } from '../models/charts/cellTarget'
import { noteMine } from '../models/cohorts/creator'
import { downloadBlob, fileName } from '../download'
import { useMetaStore } from './meta'
import { useSessionStore } from './session'

export const CELL_PAGE_SIZE = 50

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
  const phase = ref<'idle' | 'loading' | 'ready' | 'error'>('idle')
  const count = ref<number | null>(null)
  const users = shallowRef<CellUser[]>([])
  const page = ref(1)
  const error = shallowRef<Error | null>(null)
  const saved = shallowRef<SavedCellCohort | null>(null)
  const saving = ref(false)
  const exporting = ref(false)
  let generation = 0

  function query(): CellQuery | null {
    const t = target.value
    const cell = t?.choices[choice.value]?.cell
    return t && body.value && cell ? { kind: t.kind, body: body.value, cell } : null
  }

  async function load(n: number): Promise<void> {
    const q = query()
    if (!q) return
    const own = ++generation
    phase.value = 'loading'
    error.value = null
    try {
      const answer = await cellUsers(session.projectAuth, q, n, CELL_PAGE_SIZE)
      if (own !== generation) return
      count.value = answer.count
      users.value = answer.users
      page.value = n
      phase.value = 'ready'
    } catch (err) {
      if (own !== generation) return
      error.value = err as Error
      phase.value = 'error'
    }
  }

  function open(t: CellTarget, request: AnalysisRequests[keyof AnalysisRequests]): void {
    target.value = t
    body.value = request
    choice.value = 0
    saved.value = null
    count.value = null
    users.value = []
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
    generation++
    target.value = null
    body.value = null
    phase.value = 'idle'
    count.value = null
    users.value = []
    saved.value = null
    error.value = null
  }

  // another project: the cell was about the one before
  watch(
    () => session.appKey,
    () => close(),
  )

  return { target, choice, phase, count, users, page, error, saved, saving, exporting, open, choose, load, exportCsv, save, close }
})

import { defineStore } from 'pinia'
import { computed, ref, watch } from 'vue'
import type { AnalysisKind } from '../api/analysis'
import type { Definitions, RangeDraft } from '../views/Charts/model/definitions'
import { useSessionStore } from './session'

/** A saved chart: one analysis's definition with its range and crowd. */
export interface SavedReport<K extends AnalysisKind = AnalysisKind> {
  id: string
  name: string
  kind: K
  definition: Definitions[K]
  range: RangeDraft
  crowd: string
  savedAt: number
}

const PREFIX = 'uba-desk.reports.'

function newId(): string {
  return `r${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`
}

function read(appKey: string): SavedReport[] {
  try {
    const raw = localStorage.getItem(PREFIX + appKey)
    const list = raw ? (JSON.parse(raw) as unknown) : []
    return Array.isArray(list) ? (list as SavedReport[]) : []
  } catch {
    return []
  }
}

/**
 * Saved reports, kept locally (this machine's storage, per project): the API has no report store.
 * Newest first.
 */
export const useReportStore = defineStore('reports', () => {
  const session = useSessionStore()
  const reports = ref<SavedReport[]>(read(session.appKey))
  const storageError = ref<Error | null>(null)

  watch(
    () => session.appKey,
    (appKey) => {
      reports.value = read(appKey)
    },
  )

  const sorted = computed(() => [...reports.value].sort((a, b) => b.savedAt - a.savedAt))

  function persist(): void {
    try {
      localStorage.setItem(PREFIX + session.appKey, JSON.stringify(reports.value))
      storageError.value = null
    } catch (err) {
      storageError.value = err as Error
    }
  }

  function find(id: string): SavedReport | undefined {
    return reports.value.find((r) => r.id === id)
  }

  /** Saves a new report, or replaces the one with the same id; answers the saved report. */
  function save<K extends AnalysisKind>(report: Omit<SavedReport<K>, 'id' | 'savedAt'> & { id?: string }): SavedReport<K> {
    // a deep copy: the builder keeps editing its own objects
    const saved = JSON.parse(JSON.stringify({ ...report, id: report.id ?? newId(), savedAt: Date.now() })) as SavedReport<K>
    const others = reports.value.filter((r) => r.id !== saved.id)
    reports.value = [saved as SavedReport, ...others]
    persist()
    return saved
  }

  function remove(id: string): void {
    reports.value = reports.value.filter((r) => r.id !== id)
    persist()
  }

  return { reports: sorted, storageError, find, save, remove }
})

import { defineStore } from 'pinia'
import { computed, ref, shallowRef } from 'vue'
import { clearProblemLog, getProblemLog, type ProblemLog } from '../api/ingestProblems'
import { useSessionStore } from './session'

type LoadState = 'idle' | 'loading' | 'ready' | 'error'

/**
 * The data quality log of the current project: what the collector refused or left out. Read by the
 * Import view and by the sidebar's badge, so that a developer sees at once that SDK data was lost.
 */
export const useIngestProblemsStore = defineStore('ingestProblems', () => {
  const session = useSessionStore()

  const log = shallowRef<ProblemLog | null>(null)
  const owner = ref('')
  const state = ref<LoadState>('idle')
  const error = ref<Error | null>(null)
  const clearing = ref(false)
  const clearError = ref<Error | null>(null)

  const current = computed(() => (owner.value === session.appKey ? log.value : null))
  /** Problems counted for the current project, with the records naming no known project and the uploads refused busy (0 until known). */
  const total = computed(() => (current.value?.total ?? 0) + (current.value?.unknownProjects?.records ?? 0) + (current.value?.busyRefusals?.uploads ?? 0))

  async function load(): Promise<void> {
    const auth = session.projectAuth
    // the token arrives with the project list after a reload: asking before it would be a 401
    if (!auth.appKey || !auth.token) return
    if (owner.value !== auth.appKey) state.value = 'loading'
    try {
      const next = await getProblemLog(auth)
      if (auth.appKey !== session.appKey) return
      log.value = next
      owner.value = auth.appKey
      state.value = 'ready'
      error.value = null
    } catch (err) {
      if (auth.appKey !== session.appKey) return
      error.value = err as Error
      state.value = 'error'
    }
  }

  /** Empties the log; resolves to whether it worked (else `clearError` says why). */
  async function clear(): Promise<boolean> {
    const auth = session.projectAuth
    clearing.value = true
    clearError.value = null
    try {
      await clearProblemLog(auth)
      await load()
      return true
    } catch (err) {
      clearError.value = err as Error
      return false
    } finally {
      clearing.value = false
    }
  }

  return { current, total, state, error, clearing, clearError, load, clear }
})

import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import { clearProblemLog, getProblemLog, type ProblemLog } from '../api/ingestProblems'
import { projectResource } from './projectResource'
import { useSessionStore } from './session'

/**
 * The data quality log of the current project: what the collector refused or left out. Read by the
 * Import view and by the sidebar's badge, so that a developer sees at once that SDK data was lost.
 */
export const useIngestProblemsStore = defineStore('ingestProblems', () => {
  const session = useSessionStore()

  const { current, state, error, load: read } = projectResource<ProblemLog | null>(null, { needsToken: true })
  const clearing = ref(false)
  const clearError = ref<Error | null>(null)

  /** Problems counted for the current project, with the records naming no known project and the uploads refused busy (0 until known). */
  const total = computed(() => (current.value?.total ?? 0) + (current.value?.unknownProjects?.records ?? 0) + (current.value?.busyRefusals?.uploads ?? 0))

  function load(): Promise<void> {
    return read(getProblemLog)
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

import { defineStore } from 'pinia'
import { ref, shallowRef } from 'vue'
import { getImportRoots, setImportRoots, type ImportRoots } from '../api/settings'
import { useSessionStore } from './session'

/** The folders imports by path may read: loaded for Settings, saved from there. */
export const useImportRootsStore = defineStore('importRoots', () => {
  const session = useSessionStore()
  const current = shallowRef<ImportRoots | null>(null)
  const state = ref<'idle' | 'loading' | 'ready' | 'error'>('idle')
  const error = shallowRef<Error | null>(null)

  async function load(): Promise<void> {
    state.value = 'loading'
    try {
      current.value = await getImportRoots(session.platformAuth)
      state.value = 'ready'
    } catch (err) {
      error.value = err as Error
      state.value = 'error'
    }
  }

  /** Saves the list; rejects with the server's error (a 400 names roots[i]) for the view to show. */
  async function save(roots: string[]): Promise<void> {
    current.value = await setImportRoots(session.platformAuth, roots)
  }

  return { current, state, error, load, save }
})

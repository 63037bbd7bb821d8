import { computed, ref, shallowRef, type ComputedRef, type Ref, type ShallowRef } from 'vue'
import type { ProjectAuth } from '../api/http'
import { useSessionStore } from './session'

export type LoadState = 'idle' | 'loading' | 'ready' | 'error'

export interface ProjectResourceOptions {
  /** Wait for the project token too: right after a reload it arrives with the project list, and asking before it would be a 401. */
  needsToken?: boolean
  /** Called when a read starts for another project than the one whose answer is kept: what belonged to the old one goes. */
  onSwitch?: () => void
}

export interface ProjectResource<T> {
  /** The project the kept answer belongs to. */
  owner: Ref<string>
  data: ShallowRef<T>
  /** The kept answer if it belongs to the current project, else `empty`. */
  current: ComputedRef<T>
  state: Ref<LoadState>
  error: Ref<Error | null>
  /** Reads it again with `read` (nothing without a project). */
  load: (read: (auth: ProjectAuth) => Promise<T>) => Promise<void>
}

/**
 * Something a store reads from the API for the current project, for a store: `state` and `error`
 * say where the read stands. What is shown stays on screen while it is read again (`loading` only
 * for another project); an answer that arrives after the user switched project is dropped, and an
 * error stays until an answer replaces it.
 */
export function projectResource<T>(empty: T, options: ProjectResourceOptions = {}): ProjectResource<T> {
  const session = useSessionStore()

  const owner = ref('')
  const data = shallowRef<T>(empty)
  const state = ref<LoadState>('idle')
  const error = ref<Error | null>(null)
  const current = computed<T>(() => (owner.value === session.appKey ? data.value : empty))

  async function load(read: (auth: ProjectAuth) => Promise<T>): Promise<void> {
    const auth = session.projectAuth
    if (!auth.appKey || (options.needsToken && !auth.token)) return
    if (owner.value !== auth.appKey) {
      state.value = 'loading'
      options.onSwitch?.()
    }
    try {
      const next = await read(auth)
      if (auth.appKey !== session.appKey) return
      data.value = next
      owner.value = auth.appKey
      state.value = 'ready'
      error.value = null
    } catch (err) {
      if (auth.appKey !== session.appKey) return
      error.value = err as Error
      state.value = 'error'
    }
  }

  return { owner, data, current, state, error, load }
}

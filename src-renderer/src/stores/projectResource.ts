import { computed, ref, shallowRef, type ComputedRef, type Ref, type ShallowRef } from 'vue'
import type { ProjectAuth } from '../api/http'
import { useSessionStore } from './session'

export type LoadState = 'idle' | 'loading' | 'ready' | 'error'

export interface ProjectResourceOptions {
  /** Wait for the project token too: right after a reload it arrives with the project list, and asking before it would be a 401. */
  needsToken?: boolean
  /** Called when a read starts for another project than the one whose answer is kept: what belonged to the old one goes. */
  onSwitch?: () => void
  /**
   * When the kept answer changes project. 'answer' (default): when the new project's answer
   * arrives; an answer for a project the user has since left is dropped. 'read': as soon as a read
   * for another project starts (`data` is `empty` again); an answer is kept unless a read for
   * another project started after it.
   */
  switchOn?: 'answer' | 'read'
  /** Loads share one read: one under way, or the last one that succeeded for this project, is the answer (`again` reads anew). */
  shared?: boolean
  /** When a read says `loading`: 'switch' (default: for another project only), 'always', or 'unlessShown' (unless an answer of this project is ready). */
  loadingOn?: 'switch' | 'always' | 'unlessShown'
  /** A failed read of a project whose answer is shown and ready keeps it ready: only `error` says the refresh failed. */
  keepOnRefreshError?: boolean
  /** Runs after an answer or error was kept, before the load is done (a shared load waits for it too). */
  after?: () => Promise<void>
  /**
   * Each read replaces the one before: a read still in flight is superseded (its answer or error
   * is dropped), and the last error goes as the new read starts.
   */
  newestWins?: boolean
  /** A failed read forgets the answer kept before it (`data` is `empty` again). */
  forgetOnError?: boolean
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
  load: (read: (auth: ProjectAuth) => Promise<T>, again?: boolean) => Promise<void>
  /** Forgets it: a read in flight is superseded, `data` is `empty`, `state` idle and `error` null. */
  drop: () => void
}

/**
 * Something a store reads from the API for the current project, for a store: `state` and `error`
 * say where the read stands. What is shown stays on screen while it is read again (`loading` only
 * for another project); an answer that arrives after the user switched project is dropped, and an
 * error stays until an answer replaces it. The options give the variants some stores need.
 */
export function projectResource<T>(empty: T, options: ProjectResourceOptions = {}): ProjectResource<T> {
  const session = useSessionStore()

  const owner = ref('')
  const data = shallowRef<T>(empty)
  const state = ref<LoadState>('idle')
  const error = ref<Error | null>(null)
  const current = computed<T>(() => (owner.value === session.appKey ? data.value : empty))
  // the last read when `shared`, and the project it is for
  let last: { appKey: string; run: Promise<void> } | null = null
  // counts the reads that supersede (`newestWins`) and the drops
  let newest = 0

  // an answer is kept while its project is still the one it was read for
  const stale = (auth: ProjectAuth) => (options.switchOn === 'read' ? owner.value !== auth.appKey : auth.appKey !== session.appKey)

  function load(read: (auth: ProjectAuth) => Promise<T>, again = false): Promise<void> {
    const auth = session.projectAuth
    if (!auth.appKey || (options.needsToken && !auth.token)) return Promise.resolve()
    const switching = owner.value !== auth.appKey
    if (switching && options.switchOn === 'read') {
      owner.value = auth.appKey
      data.value = empty
      state.value = 'idle'
      error.value = null
    }
    if (last && last.appKey === auth.appKey && !again && state.value !== 'error') return last.run
    const shown = !switching && state.value === 'ready'
    const loadingOn = options.loadingOn ?? 'switch'
    if (switching || loadingOn === 'always' || (loadingOn === 'unlessShown' && !shown)) state.value = 'loading'
    if (switching) options.onSwitch?.()
    const ticket = options.newestWins ? ++newest : newest
    if (options.newestWins) error.value = null
    // a drop (and with `newestWins` a later read) makes this one's answer stale too
    const dropped = () => ticket !== newest || stale(auth)
    const run = (async () => {
      try {
        const next = await read(auth)
        if (dropped()) return
        data.value = next
        owner.value = auth.appKey
        state.value = 'ready'
        error.value = null
      } catch (err) {
        if (dropped()) return
        error.value = err as Error
        if (options.forgetOnError) data.value = empty
        if (!(options.keepOnRefreshError && shown)) state.value = 'error'
      }
      await options.after?.()
    })()
    if (options.shared) last = { appKey: auth.appKey, run }
    return run
  }

  function drop(): void {
    newest++
    last = null
    data.value = empty
    state.value = 'idle'
    error.value = null
  }

  return { owner, data, current, state, error, load, drop }
}

export interface KeyedResource<T> extends ProjectResource<T> {
  /** What the kept answer is for (an event, a table); '' for nothing. */
  key: Ref<string>
  /** Reads it for `key`: for another key than the last, what was kept goes, a read still under way is dropped, and it says loading. */
  loadFor: (key: string, read: (auth: ProjectAuth) => Promise<T>) => Promise<void>
}

/** A project resource read for one key at a time (an event's properties, a table's fields); the newest read wins. */
export function keyedResource<T>(empty: T): KeyedResource<T> {
  const resource = projectResource<T>(empty, { newestWins: true })
  const key = ref('')
  function loadFor(next: string, read: (auth: ProjectAuth) => Promise<T>): Promise<void> {
    if (key.value !== next) {
      key.value = next
      resource.drop()
      resource.state.value = 'loading'
    }
    return resource.load(read)
  }
  return { ...resource, key, loadFor }
}

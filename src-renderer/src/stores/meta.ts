import { defineStore } from 'pinia'
import { reactive, ref, shallowRef } from 'vue'
import { listCohorts, type Cohort } from '../api/cohorts'
import { listEvents, listMetaEventProperties, listMetaEvents, listMetaUserProperties, type MetaEvent, type MetaProperty } from '../api/schema'
import { useSessionStore } from './session'

type LoadState = 'idle' | 'loading' | 'ready' | 'error'

/** `event.$Anything`: any event (spec 2.7). */
export const ANY_EVENT = '$Anything'

/**
 * What the analyses can be asked about, for the pickers: events, their properties, user
 * properties and cohorts, read from the metadata API once per project and kept.
 */
export const useMetaStore = defineStore('meta', () => {
  const session = useSessionStore()

  const owner = ref('')
  const state = ref<LoadState>('idle')
  const error = ref<Error | null>(null)
  const events = shallowRef<MetaEvent[]>([])
  /** Ids of tracked events that have reported data; null when unknown (the plan could not be read). */
  const reported = shallowRef<Set<string> | null>(null)
  const userProperties = shallowRef<MetaProperty[]>([])
  const eventProperties = reactive(new Map<string, MetaProperty[]>())
  const crowds = shallowRef<Cohort[]>([])
  /** Cohorts could not be listed (e.g. a server without cohorts yet): only "All users" is offered. */
  const crowdsError = ref<Error | null>(null)
  const pendingProperties = new Map<string, Promise<MetaProperty[]>>()
  let loading: Promise<void> | null = null

  function reset(appKey: string): void {
    owner.value = appKey
    state.value = 'idle'
    error.value = null
    events.value = []
    reported.value = null
    userProperties.value = []
    eventProperties.clear()
    pendingProperties.clear()
    crowds.value = []
    crowdsError.value = null
    loading = null
  }

  /** Loads the listings of the current project (once; again after an error or a project switch). */
  function load(): Promise<void> {
    const auth = session.projectAuth
    if (owner.value !== auth.appKey) reset(auth.appKey)
    if (loading && state.value !== 'error') return loading
    state.value = 'loading'
    error.value = null
    loading = (async () => {
      try {
        const [metaEvents, users, plan] = await Promise.all([
          listMetaEvents(auth),
          listMetaUserProperties(auth),
          listEvents(auth).catch(() => null),
        ])
        if (owner.value !== auth.appKey) return
        events.value = metaEvents
        userProperties.value = users.filter((p) => p.visible === 1)
        reported.value = plan ? new Set(plan.filter((e) => e.dataStatus === 1).map((e) => e.id)) : null
        state.value = 'ready'
      } catch (err) {
        if (owner.value !== auth.appKey) return
        error.value = err as Error
        state.value = 'error'
      }
      await loadCrowds()
    })()
    return loading
  }

  async function loadCrowds(): Promise<void> {
    const auth = session.projectAuth
    try {
      const list = await listCohorts(auth)
      if (owner.value !== auth.appKey) return
      crowds.value = list
      crowdsError.value = null
    } catch (err) {
      if (owner.value !== auth.appKey) return
      crowds.value = []
      crowdsError.value = err as Error
    }
  }

  /** A cohort deleted here: it is no longer offered as a crowd (before the list is read again). */
  function dropCrowd(id: number): void {
    crowds.value = crowds.value.filter((c) => c.id !== id)
  }

  /** The properties an event carries (common and its own); `$Anything`: every event property. */
  function propertiesOf(eventId: string): Promise<MetaProperty[]> {
    const known = eventProperties.get(eventId)
    if (known) return Promise.resolve(known)
    const pending = pendingProperties.get(eventId)
    if (pending) return pending
    const auth = session.projectAuth
    const next = listMetaEventProperties(auth, eventId)
      .then((list) => {
        if (owner.value === auth.appKey) eventProperties.set(eventId, list)
        return list
      })
      .finally(() => pendingProperties.delete(eventId))
    pendingProperties.set(eventId, next)
    return next
  }

  function eventName(eventId: string): string {
    if (eventId === ANY_EVENT) return 'Any event'
    const event = events.value.find((e) => e.id === eventId)
    return event?.name || eventId
  }

  function userPropertyName(propertyId: string): string {
    const property = userProperties.value.find((p) => p.id === propertyId)
    return property?.name || propertyId
  }

  /** The display name of a property expression (event.<e>.<p> or user.<p>), from what is loaded. */
  function propertyName(expression: string): string {
    const parts = expression.split('.')
    if (parts[0] === 'user') return userPropertyName(parts[1])
    const id = parts[2] ?? ''
    const own = eventProperties.get(parts[1])?.find((p) => p.id === id) ?? eventProperties.get(ANY_EVENT)?.find((p) => p.id === id)
    return own?.name || id
  }

  return { owner, state, error, events, reported, userProperties, eventProperties, crowds, crowdsError, load, loadCrowds, dropCrowd, propertiesOf, eventName, userPropertyName, propertyName }
})

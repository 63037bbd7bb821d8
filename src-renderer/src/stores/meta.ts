import { defineStore } from 'pinia'
import { computed, reactive, ref, shallowRef } from 'vue'
import { listCohorts, type Cohort } from '../api/cohorts'
import { listEvents, listMetaEventProperties, listMetaEvents, listMetaUserProperties, type MetaEvent, type MetaProperty } from '../api/schema'
import { projectResource } from './projectResource'
import { useSessionStore } from './session'

/** `event.$Anything`: any event (spec 2.7). */
export const ANY_EVENT = '$Anything'

interface Listings {
  events: MetaEvent[]
  userProperties: MetaProperty[]
  reported: Set<string> | null
}

const NONE: Listings = { events: [], userProperties: [], reported: null }

/**
 * What the analyses can be asked about, for the pickers: events, their properties, user
 * properties and cohorts, read from the metadata API once per project and kept.
 */
export const useMetaStore = defineStore('meta', () => {
  const session = useSessionStore()

  const eventProperties = reactive(new Map<string, MetaProperty[]>())
  const crowds = shallowRef<Cohort[]>([])
  /** Cohorts could not be listed (e.g. a server without cohorts yet): only "All users" is offered. */
  const crowdsError = ref<Error | null>(null)
  const pendingProperties = new Map<string, Promise<MetaProperty[]>>()

  // read once per project (again after an error); a switch empties everything at once; the crowds follow each read
  const listings = projectResource<Listings>(NONE, {
    switchOn: 'read',
    shared: true,
    loadingOn: 'always',
    after: loadCrowds,
    onSwitch: () => {
      eventProperties.clear()
      pendingProperties.clear()
      crowds.value = []
      crowdsError.value = null
    },
  })
  const { owner, state, error } = listings
  const events = computed(() => listings.data.value.events)
  /** Ids of tracked events that have reported data; null when unknown (the plan could not be read). */
  const reported = computed(() => listings.data.value.reported)
  const userProperties = computed(() => listings.data.value.userProperties)

  /** Loads the listings of the current project (once; again after an error or a project switch). */
  function load(): Promise<void> {
    return listings.load(async (auth) => {
      const [metaEvents, users, plan] = await Promise.all([listMetaEvents(auth), listMetaUserProperties(auth), listEvents(auth).catch(() => null)])
      return {
        events: metaEvents,
        userProperties: users.filter((p) => p.visible === 1),
        reported: plan ? new Set(plan.filter((e) => e.dataStatus === 1).map((e) => e.id)) : null,
      }
    })
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

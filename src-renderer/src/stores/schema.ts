import { defineStore } from 'pinia'
import { computed } from 'vue'
import {
  createVirtualEvent, declareEvent, declareUserProperty, listEventProperties, listEvents, listMetaEventProperties, listMetaEvents,
  listMetaUserProperties, listUserProperties, updateEvent, updateEventProperty, updateUserProperty, updateVirtualEvent,
  type MetaEvent, type MetaProperty, type PlanChanges, type PlanEvent, type PlanEventProperty, type PlanUserProperty, type VirtualEventInput,
} from '../api/schema'
import { keyedResource, projectResource } from './projectResource'
import { useSessionStore } from './session'

/** What the plan lists: the events, the user properties and the virtual events. */
interface Plan {
  events: PlanEvent[]
  userProperties: PlanUserProperty[]
  virtualEvents: MetaEvent[]
}

/** A name or remark as a declaration sends it: absent rather than empty. */
function text(value: string | null | undefined): string | undefined {
  return value ? value : undefined
}

/**
 * The tracking plan of the current project: events, their properties, user properties and
 * virtual events, and the edits made to them. Every edit reloads what it changed from the server,
 * so what is shown is always what the API holds.
 */
export const useSchemaStore = defineStore('schema', () => {
  const session = useSessionStore()

  /** The properties of one event at a time (the one being looked at). */
  const properties = keyedResource<PlanEventProperty[]>([])
  const { key: propertiesEvent, data: eventProperties, state: propertiesState, error: propertiesError } = properties

  const plan = projectResource<Plan>(
    { events: [], userProperties: [], virtualEvents: [] },
    {
      onSwitch: () => {
        propertiesEvent.value = ''
        eventProperties.value = []
      },
    },
  )
  const { state, error } = plan
  const events = computed(() => plan.data.value.events)
  const userProperties = computed(() => plan.data.value.userProperties)
  const virtualEvents = computed(() => plan.data.value.virtualEvents)

  /** Property lists for filters, by project and event; dropped whenever the plan is reloaded. */
  const metaCache = new Map<string, Promise<MetaProperty[]>>()

  const ready = computed(() => plan.owner.value === session.appKey && state.value === 'ready')

  function load(): Promise<void> {
    return plan.load(async (auth) => {
      metaCache.clear()
      const [events, userProperties, virtualEvents] = await Promise.all([listEvents(auth), listUserProperties(auth), listMetaEvents(auth, 'virtual')])
      return { events, userProperties, virtualEvents }
    })
  }

  function loadEventProperties(eventId: string): Promise<void> {
    return properties.loadFor(eventId, (auth) => listEventProperties(auth, eventId))
  }

  /** Saves an event's name and remark; `intoPlan` puts an event outside the plan into it. */
  async function saveEvent(event: PlanEvent, changes: { name: string; remark: string }, intoPlan: boolean): Promise<void> {
    const auth = session.projectAuth
    if (intoPlan && event.plan === 0) await declareEvent(auth, { id: event.id, name: text(changes.name), remark: text(changes.remark) })
    else await updateEvent(auth, event.id, { name: changes.name || null, remark: changes.remark || null })
    await load()
  }

  async function saveUserProperty(property: PlanUserProperty, changes: Required<PlanChanges>, intoPlan: boolean): Promise<void> {
    const auth = session.projectAuth
    if (intoPlan && property.plan === 0) {
      await declareUserProperty(auth, { id: property.id, dataType: changes.dataType, name: text(changes.name), remark: text(changes.remark) })
      if (changes.masking !== property.masking) await updateUserProperty(auth, property.id, { masking: changes.masking })
    } else {
      await updateUserProperty(auth, property.id, {
        name: changes.name || null,
        remark: changes.remark || null,
        ...(changes.dataType !== property.dataType ? { dataType: changes.dataType } : {}),
        ...(changes.masking !== property.masking ? { masking: changes.masking } : {}),
      })
    }
    await load()
  }

  /**
   * A property's name, remark and type are the same on every event; putting it into the plan links
   * it to this event in the plan (the event is declared again with its own name and remark).
   */
  async function saveEventProperty(eventId: string, property: PlanEventProperty, changes: Required<PlanChanges>, intoPlan: boolean): Promise<void> {
    const auth = session.projectAuth
    if (intoPlan && property.plan === 0) {
      const event = events.value.find((e) => e.id === eventId)
      await declareEvent(auth, {
        id: eventId,
        name: text(event?.name),
        remark: text(event?.remark),
        properties: [{ id: property.id, dataType: changes.dataType, name: text(changes.name), remark: text(changes.remark) }],
      })
      if (changes.masking !== property.masking) await updateEventProperty(auth, eventId, property.id, { masking: changes.masking })
    } else {
      await updateEventProperty(auth, eventId, property.id, {
        name: changes.name || null,
        remark: changes.remark || null,
        ...(changes.dataType !== property.dataType ? { dataType: changes.dataType } : {}),
        ...(changes.masking !== property.masking ? { masking: changes.masking } : {}),
      })
    }
    await Promise.all([loadEventProperties(eventId), load()])
  }

  async function saveVirtualEvent(input: VirtualEventInput, isNew: boolean): Promise<void> {
    const auth = session.projectAuth
    await (isNew ? createVirtualEvent(auth, input) : updateVirtualEvent(auth, input))
    await load()
  }

  /** What a filter on an event may use: the event's properties (analysis view of the plan). */
  function filterProperties(eventId: string): Promise<MetaProperty[]> {
    const auth = session.projectAuth
    const key = `${auth.appKey}\u0000event\u0000${eventId}`
    let found = metaCache.get(key)
    if (!found) {
      found = listMetaEventProperties(auth, eventId)
      found.catch(() => metaCache.delete(key))
      metaCache.set(key, found)
    }
    return found
  }

  function filterUserProperties(): Promise<MetaProperty[]> {
    const auth = session.projectAuth
    const key = `${auth.appKey}\u0000user`
    let found = metaCache.get(key)
    if (!found) {
      found = listMetaUserProperties(auth).then((list) => list.filter((p) => p.visible === 1))
      found.catch(() => metaCache.delete(key))
      metaCache.set(key, found)
    }
    return found
  }

  return {
    state, error, ready, events, userProperties, virtualEvents, propertiesEvent, eventProperties, propertiesState, propertiesError,
    load, loadEventProperties, saveEvent, saveUserProperty, saveEventProperty, saveVirtualEvent, filterProperties, filterUserProperties,
  }
})

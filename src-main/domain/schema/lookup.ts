import type { MetaDb } from '../../store/meta'
import { allEventProperties, findEvent, membersOf, propertiesOfEvents } from './planRows'
import { userPropertyTypes } from './plan'
import type { DataType } from './types'

/** What a property expression names. */
export type PropertyRef = { kind: 'event'; eventId: string; propertyId: string } | { kind: 'user'; propertyId: string }

/** The data type of a property in the plan, or undefined when the plan has no such property there. */
export type PropertyLookup = (ref: PropertyRef) => DataType | undefined

/** `event.$Anything` (spec 2.7): any event. */
export const ANY_EVENT = '$Anything'

/**
 * The property types a filter may use, read from the plan once per request: `user.<p>` any user
 * property; `event.<e>.<p>` a property that event carries (common or its own); for a virtual
 * event, a property of one of its member events; for `$Anything`, any event property.
 */
export function planLookup(meta: MetaDb, appKey: string): PropertyLookup {
  let users: Map<string, DataType> | undefined
  const events = new Map<string, Map<string, DataType>>()

  const propertiesOf = (eventId: string): Map<string, DataType> => {
    let known = events.get(eventId)
    if (known) return known
    let rows: { id: string; data_type: DataType }[] = []
    if (eventId === ANY_EVENT) rows = allEventProperties(meta, appKey)
    else {
      const event = findEvent(meta, appKey, eventId)
      if (event) rows = propertiesOfEvents(meta, appKey, event.type === 'virtual' ? membersOf(event.content) : [event.id])
    }
    known = new Map(rows.map((r) => [r.id, r.data_type]))
    events.set(eventId, known)
    return known
  }

  return (ref: PropertyRef) => {
    if (ref.kind === 'user') {
      users ??= userPropertyTypes(meta, appKey)
      return users.get(ref.propertyId)
    }
    return propertiesOf(ref.eventId).get(ref.propertyId)
  }
}

import type { DataType, Filter, FilterFunction, MetaEvent, VirtualEventInput } from '../../api/schema'

/** A virtual event being edited: members with their filter conditions, in the editor's own shape. */

export interface ConditionDraft {
  key: number
  /** event.<eventId>.<propertyId> or user.<propertyId> */
  expression: string
  fn: FilterFunction
  params: (string | number)[]
}

export interface MemberDraft {
  key: number
  eventId: string
  relation: 'AND' | 'OR'
  conditions: ConditionDraft[]
}

/** A property a condition can use, with the expression that names it. */
export interface FilterProperty {
  expression: string
  label: string
  dataType: DataType
  group: 'event' | 'user'
}

let next = 1
export const newKey = () => next++

export function newMember(eventId = ''): MemberDraft {
  return { key: newKey(), eventId, relation: 'AND', conditions: [] }
}

export function membersOf(event: MetaEvent | null): MemberDraft[] {
  if (!event?.content) return [newMember()]
  return event.content.events.map((m) => ({
    key: newKey(),
    eventId: m.expression.replace(/^event\./, ''),
    relation: m.filter?.relation === 'OR' ? 'OR' : 'AND',
    conditions: (m.filter?.conditions ?? []).map((c) => ({ key: newKey(), expression: c.expression, fn: c.function, params: [...c.params] })),
  }))
}

/** The request body: members as event.<id>, a filter only where there are conditions. */
export function inputOf(id: string, name: string, remark: string, members: MemberDraft[], isNew: boolean): VirtualEventInput {
  const events = members.map((m) => {
    const filter: Filter | undefined = m.conditions.length > 0
      ? { relation: m.relation, conditions: m.conditions.map((c) => ({ expression: c.expression, function: c.fn, params: c.params })) }
      : undefined
    return filter ? { expression: `event.${m.eventId}`, filter } : { expression: `event.${m.eventId}` }
  })
  // on a change, an emptied name or remark is sent as null, which clears it
  const text = (value: string) => (value.trim() === '' ? (isNew ? undefined : null) : value.trim())
  return { id, name: text(name), remark: text(remark), events }
}

/** "buy or view (filtered)": how the table sums up a rule. */
export function ruleSummary(event: MetaEvent): string {
  const members = event.content?.events ?? []
  return members
    .map((m) => {
      const id = m.expression.replace(/^event\./, '')
      const n = m.filter?.conditions.length ?? 0
      return n > 0 ? `${id} (${n} ${n === 1 ? 'filter' : 'filters'})` : id
    })
    .join(' or ')
}

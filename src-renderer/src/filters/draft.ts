import type { DataType, FilterFunction } from '../api/schema'

/**
 * A filter as the shared pickers and filter editor (components/charts) hold it while it is
 * written, in charts and in cohorts alike. Property references keep their scope and id; whoever
 * sends the filter writes the expression for the event it applies to.
 */

export type PropertyScope = 'event' | 'user'

export interface PropertyRefDraft {
  scope: PropertyScope
  id: string
  dataType: DataType
}

export interface ConditionDraft {
  key: string
  property: PropertyRefDraft | null
  /** '' until an operator is picked. */
  function: FilterFunction | ''
  params: (string | number)[]
}

export interface FilterDraft {
  relation: 'AND' | 'OR'
  conditions: ConditionDraft[]
}

let counter = 0
/** A key for list items (v-for), unique within the page. */
export function newKey(): string {
  counter += 1
  return `k${Date.now().toString(36)}${counter}`
}

export function emptyFilter(): FilterDraft {
  return { relation: 'AND', conditions: [] }
}

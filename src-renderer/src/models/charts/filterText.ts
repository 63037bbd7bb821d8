import { OPERATORS } from '../../filters/operators'
import type { FilterDraft, PropertyRefDraft } from './definitions'

/**
 * A filter in words for an exported image ("City is Beijing, Shanghai and Age > 30"): the
 * conditions the request applies, those still waiting for a value left out as the builder does.
 */
export function filterText(filter: FilterDraft, name: (property: PropertyRefDraft) => string): string {
  const parts = filter.conditions.flatMap((c) => {
    if (!c.property) return []
    const operator = OPERATORS[c.property.dataType]?.find((o) => o.function === c.function)
    if (!operator || (operator.params !== 'none' && c.params.length === 0)) return []
    const values = operator.params === 'none' ? '' : ` ${c.params.join(', ')}`
    return [`${name(c.property)} ${operator.label}${values}`]
  })
  return parts.join(filter.relation === 'OR' ? ' or ' : ' and ')
}

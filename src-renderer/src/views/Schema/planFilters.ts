/** Search and plan-state filters shared by the Schema tables. */

export type PlanFilter = 'all' | 'planned' | 'unplanned'
export type DataFilter = 'all' | 'reported' | 'empty'

export interface PlanItem {
  id: string
  name: string | null
  remark: string | null
  plan?: number
  dataStatus?: number
}

/** Every word of the query must appear in the id, the display name or the remark (any case). */
export function matches(item: PlanItem, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean)
  if (words.length === 0) return true
  const hay = `${item.id} ${item.name ?? ''} ${item.remark ?? ''}`.toLowerCase()
  return words.every((w) => hay.includes(w))
}

export function filterItems<T extends PlanItem>(items: T[], query: string, plan: PlanFilter, data: DataFilter): T[] {
  return items.filter(
    (item) =>
      (plan === 'all' || (plan === 'planned') === (item.plan === 1)) &&
      (data === 'all' || (data === 'reported') === (item.dataStatus === 1)) &&
      matches(item, query),
  )
}

/** Display names and remarks: letters of any script, digits, spaces and everyday punctuation (the server's rule). */
export const PLAIN_TEXT = /^[\p{L}\p{M}\p{N} _\-.,:;!?()[\]/&+#%@*=~|，。、：；！？（）【】《》·…–—]*$/u
export const PLAIN_TEXT_RULE = 'Letters, digits, spaces and everyday punctuation; not < > " \' ` \\ { } ^ $'
export const NAME_MAX = 50
export const REMARK_MAX = 100

/** The problem with a display name or remark, or '' when it is fine. */
export function textProblem(value: string, max: number): string {
  if (value.length > max) return `At most ${max} characters`
  if (!PLAIN_TEXT.test(value)) return PLAIN_TEXT_RULE
  return ''
}

/** Ids of virtual events and dimension tables: letters, digits and _, not a digit first, at most 100. */
export const SCHEMA_ID = /^[A-Za-z_][A-Za-z0-9_]{0,99}$/

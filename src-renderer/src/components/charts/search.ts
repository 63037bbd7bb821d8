/** One choice of a searchable list: events, properties, cohorts. */
export interface SelectOption {
  value: string
  label: string
  /** Shown faint after the label (an id, a type). */
  hint?: string
  group?: string
  /** A short tag on the right (a data type, "virtual"). */
  badge?: string
}

const escape = (word: string): string => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Best first: the label itself, then labels starting with the words, then a word start, then anywhere. */
function score(option: SelectOption, words: string[]): number {
  const label = option.label.toLowerCase()
  const text = `${label} ${option.value.toLowerCase()} ${option.hint?.toLowerCase() ?? ''}`
  if (!words.every((w) => text.includes(w))) return -1
  const phrase = words.join(' ')
  if (label === phrase || option.value.toLowerCase() === phrase) return 3
  if (label.startsWith(phrase)) return 2
  return words.every((w) => new RegExp(`(^|[\\s_$.-])${escape(w)}`).test(text)) ? 1 : 0
}

/** The options matching every word typed; groups keep their order, the best matches lead within each. */
export function rankOptions(options: SelectOption[], query: string): SelectOption[] {
  const words = query.trim().toLowerCase().split(/\s+/).filter(Boolean)
  if (words.length === 0) return options
  const groups = [...new Set(options.map((o) => o.group))]
  return options
    .map((option, index) => ({ option, index, group: groups.indexOf(option.group), score: score(option, words) }))
    .filter((m) => m.score >= 0)
    .sort((a, b) => a.group - b.group || b.score - a.score || a.index - b.index)
    .map((m) => m.option)
}

export type ListRow = { heading: string } | { option: SelectOption; index: number }

/** The rows of the list, with a heading where a group starts. */
export function withHeadings(options: SelectOption[]): ListRow[] {
  const out: ListRow[] = []
  let group: string | undefined
  options.forEach((option, index) => {
    if (option.group && option.group !== group) out.push({ heading: option.group })
    group = option.group
    out.push({ option, index })
  })
  return out
}

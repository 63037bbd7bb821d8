import type { ValueType } from '../dialect'

/** Text: values shown as text (labels of breakdowns, values to pick from), and plain substring tests. */
export interface TextPart {
  /** Whether text `text` contains `part` (both SQL). */
  contains(text: string, part: string): string
  /** Whether text `text` ends with `part` (both SQL). */
  endsWith(text: string, part: string): string
  /**
   * A scalar value as text: a whole number without ".0", a timestamp as yyyy-MM-dd HH:mm:ss,
   * others as the engine writes them; NULL stays NULL.
   */
  asText(value: string, type: Exclude<ValueType, 'array<string>'>): string
}

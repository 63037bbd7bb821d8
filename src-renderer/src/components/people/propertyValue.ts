/** How a property value reads in the People view: the API's value, not reformatted, so it can be compared and copied. */

export function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0)
}

export function formatValue(value: unknown): string {
  if (isEmpty(value)) return '—'
  if (Array.isArray(value)) return value.map((v) => String(v)).join(', ')
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

/** Properties that every event of a session repeats (device, place, SDK): not worth a summary line. */
export function isContextProperty(id: string, global: boolean | undefined): boolean {
  if (global !== undefined) return global
  return id.startsWith('$')
}

/** Hues far enough apart to tell events apart at a glance, in light and dark themes. */
const HUES = [250, 160, 28, 330, 200, 95, 285, 0, 48, 180]

/**
 * A stable colour per event: by its place among the project's events (distinct colours for the
 * first ten), else by a hash of its id.
 */
export function eventHue(eventId: string, order: string[]): number {
  const at = order.indexOf(eventId)
  if (at !== -1) return HUES[at % HUES.length]
  let hash = 0
  for (let i = 0; i < eventId.length; i++) hash = (hash * 31 + eventId.charCodeAt(i)) | 0
  return HUES[Math.abs(hash) % HUES.length]
}

/** The avatar letter: the first letter or digit of the user id. */
export function initial(xwho: string): string {
  return (xwho.match(/[\p{L}\p{N}]/u)?.[0] ?? '?').toUpperCase()
}

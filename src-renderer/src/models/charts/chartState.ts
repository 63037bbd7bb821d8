import type { AnalysisKind, AnalysisRequests } from '../../api/analysis'
import { resolveRange } from './dates'
import { defaultDefinitions, KINDS, type Definitions, type RangeDraft, type RangePreset } from './definitions'
import { buildRequest } from './requests'

/**
 * What one chart is: an analysis, its definition, the date range and the crowd. It is the whole of
 * what the address (`#/charts/<kind>?q=...`) and a saved report's options hold, so a link, a reload
 * or Back shows the same chart.
 */
export interface ChartState<K extends AnalysisKind = AnalysisKind> {
  kind: K
  definition: Definitions[K]
  range: RangeDraft
  crowd: string
}

const PRESETS: RangePreset[] = ['last7', 'last30', 'last90', 'custom']

export function isKind(value: unknown): value is AnalysisKind {
  return KINDS.includes(value as AnalysisKind)
}

/** The text of a state: the address's `q` and the test of "edited, not saved". */
export function encodeState(state: ChartState): string {
  return JSON.stringify({ definition: state.definition, range: state.range, crowd: state.crowd })
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * A state of `kind` from its text (an address, a report's options), or null when it is not one.
 * Fields it lacks take the builder's defaults, so an older or hand-written text still opens.
 */
export function decodeState(kind: AnalysisKind, text: unknown): ChartState | null {
  let value: unknown = text
  if (typeof text === 'string') {
    try {
      value = JSON.parse(text)
    } catch {
      return null
    }
  }
  if (!isObject(value) || !isObject(value.definition)) return null
  const range = isObject(value.range) ? value.range : {}
  const preset = PRESETS.includes(range.preset as RangePreset) ? (range.preset as RangePreset) : 'last30'
  // a field of another shape than the builder's (a hand-edited link) takes the default instead
  const defaults = defaultDefinitions()[kind] as unknown as Record<string, unknown>
  const shapeOf = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v)
  const given = value.definition
  const definition = Object.fromEntries(
    Object.entries(defaults).map(([k, d]) => {
      const g = given[k]
      const fits = shapeOf(g) === shapeOf(d) || (d === null && shapeOf(g) === 'object')
      return [k, k in given && fits ? g : d]
    }),
  )
  return {
    kind,
    definition: definition as unknown as Definitions[AnalysisKind],
    range: { preset, from: typeof range.from === 'string' ? range.from : '', to: typeof range.to === 'string' ? range.to : '' },
    crowd: typeof value.crowd === 'string' && value.crowd ? value.crowd : '$ALL',
  }
}

/** The request a state asks (null while incomplete): what a saved report keeps besides the state. */
export function requestOf(state: ChartState, timeZone?: string): AnalysisRequests[AnalysisKind] | null {
  const defs = { ...defaultDefinitions(), [state.kind]: state.definition } as Definitions
  const built = buildRequest(state.kind, defs, { range: resolveRange(state.range, timeZone), crowd: state.crowd })
  return 'body' in built ? built.body : null
}

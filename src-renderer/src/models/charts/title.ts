import type { AnalysisKind } from '../../api/analysis'
import type { Definitions } from './definitions'
import { KIND_LABELS } from './definitions'
import { labelsFor, type Names } from './resultLabels'

interface MetaNames {
  eventName(id: string): string
  userPropertyName(id: string): string
  propertyName(expression: string): string
}

/** A name for the chart on screen: the default report name and the export file name. */
export function chartTitle(kind: AnalysisKind, defs: Definitions, meta: MetaNames): string {
  const names: Names = {
    event: (id) => (id ? meta.eventName(id) : '…'),
    userProperty: (id) => meta.userPropertyName(id),
    eventProperty: (eventId, id) => meta.propertyName(`event.${eventId}.${id}`),
  }
  const labels = labelsFor(kind, defs, names)
  const by = labels.breakdowns.length ? ` by ${labels.breakdowns.join(', ')}` : ''
  switch (kind) {
    case 'funnels': {
      // the options that change who converts are part of what the chart says
      const f = defs.funnels
      const order = f.order === 'STRICT' ? ' (strict order)' : f.order === 'ANY' ? ' (any order)' : ''
      const excluded = f.order === 'ANY' ? [] : f.exclusions.filter((x) => x.eventId).map((x) => names.event(x.eventId))
      return `Funnel: ${labels.steps.join(' → ')}${order}${excluded.length ? `, excluding ${excluded.join(', ')}` : ''}${by}`
    }
    case 'retention': {
      // the options change what the numbers mean: the title (and a saved report's name) says them
      const first = defs.retention.firstTime ? `${labels.steps[0]} (first time)` : labels.steps[0]
      return `Retention: ${first} → ${labels.steps[1]}${by}${defs.retention.mode === 'onOrAfter' ? ', on or after' : ''}`
    }
    case 'distribution':
      return `Distribution: ${labels.measures[0]}${by}`
    case 'userAttributes':
      return `${KIND_LABELS.userAttributes}: ${labels.measures[0]}${by}`
    default:
      return `${labels.measures.join(', ')}${by}`
  }
}

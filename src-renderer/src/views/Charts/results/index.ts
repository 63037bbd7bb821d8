import type { ChartPalette } from '../../../components/charts/palette'
import type { ChartResult } from '../../../stores/charts'
import type { ChartStyle, RetentionView } from '../model/definitions'
import type { Shaped } from './chartBase'
import { shapeDistribution } from './distribution'
import { shapeEvents } from './events'
import { shapeFunnels } from './funnels'
import { shapeRetention } from './retention'
import { shapeUserAttributes } from './userAttributes'

/** The chart and the table of a result, by its analysis. */
export function shape(result: ChartResult, p: ChartPalette, style: ChartStyle, retentionView?: RetentionView): Shaped {
  const { response, labels } = result
  switch (result.kind) {
    case 'events':
      return shapeEvents(response as ChartResult<'events'>['response'], labels, p, style)
    case 'funnels':
      return shapeFunnels(response as ChartResult<'funnels'>['response'], labels, p)
    case 'retention':
      return shapeRetention(response as ChartResult<'retention'>['response'], labels, p, retentionView)
    case 'distribution':
      return shapeDistribution(response as ChartResult<'distribution'>['response'], labels, p)
    default:
      return shapeUserAttributes(response as ChartResult<'userAttributes'>['response'], labels, p)
  }
}

export type { Shaped }

import type { ChartPalette } from '../../../components/charts/palette'
import type { ChartResult } from '../../../stores/charts'
import type { ChartStyle, FunnelView, RetentionView } from '../../../models/charts/definitions'
import type { Shaped } from './chartBase'
import { shapeDistribution } from './distribution'
import { shapeEvents } from './events'
import { shapeFunnels } from './funnels'
import { shapeFunnelTime, shapeFunnelTrend } from './funnelViews'
import { shapeRetention } from './retention'
import { shapeUserAttributes } from './userAttributes'

/** The chart and the table of a result, by its analysis (a funnel and a retention by their chosen views). */
export function shape(result: ChartResult, p: ChartPalette, style: ChartStyle, funnelView: FunnelView = 'steps', retentionView?: RetentionView): Shaped {
  const { response, labels } = result
  switch (result.kind) {
    case 'events':
      return shapeEvents(response as ChartResult<'events'>['response'], labels, p, style)
    case 'funnels': {
      const funnel = response as ChartResult<'funnels'>['response']
      if (funnelView === 'time') return shapeFunnelTime(funnel, labels, p)
      if (funnelView === 'trend') return shapeFunnelTrend(funnel, labels, p)
      return shapeFunnels(funnel, labels, p)
    }
    case 'retention':
      return shapeRetention(response as ChartResult<'retention'>['response'], labels, p, retentionView)
    case 'distribution':
      return shapeDistribution(response as ChartResult<'distribution'>['response'], labels, p)
    default:
      return shapeUserAttributes(response as ChartResult<'userAttributes'>['response'], labels, p)
  }
}

export type { Shaped }

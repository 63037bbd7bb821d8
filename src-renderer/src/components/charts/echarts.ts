import { BarChart, HeatmapChart, LineChart } from 'echarts/charts'
import { DataZoomInsideComponent, DataZoomSliderComponent, GridComponent, LegendComponent, TitleComponent, TooltipComponent, VisualMapContinuousComponent } from 'echarts/components'
import { init, use, type ComposeOption, type EChartsType } from 'echarts/core'
import { LabelLayout } from 'echarts/features'
import { CanvasRenderer } from 'echarts/renderers'
import type { BarSeriesOption, HeatmapSeriesOption, LineSeriesOption } from 'echarts/charts'
import type { DataZoomComponentOption, GridComponentOption, LegendComponentOption, TitleComponentOption, TooltipComponentOption, VisualMapComponentOption } from 'echarts/components'

/** Only the charts and components the Charts view draws (the title in exported images, the heatmap's scrolling), to keep the bundle small. */
use([LineChart, BarChart, HeatmapChart, GridComponent, DataZoomInsideComponent, DataZoomSliderComponent, LegendComponent, TitleComponent, TooltipComponent, VisualMapContinuousComponent, LabelLayout, CanvasRenderer])

export type ChartOption = ComposeOption<
  LineSeriesOption | BarSeriesOption | HeatmapSeriesOption | GridComponentOption | LegendComponentOption | TitleComponentOption | TooltipComponentOption | VisualMapComponentOption | DataZoomComponentOption
>

export { init, type EChartsType }

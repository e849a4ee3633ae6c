// @tailscope/charts: every chart of the dashboard and the reports. A chart is a pure layout
// (data and size in, geometry out) plus a view mapping geometry to SVG (golden-file tested).
export {
  layoutAmplification,
  type AmplificationLayout,
  type CurvePoint,
} from './amplification/layout';
export { AmplificationView } from './amplification/AmplificationView';
export { layoutCdf, type CdfLayout, type CdfSeries } from './cdf/layout';
export { CdfView } from './cdf/CdfView';
export { layoutDumbbell, type DumbbellInput, type DumbbellLayout } from './dumbbell/layout';
export { DumbbellView } from './dumbbell/DumbbellView';
export { layoutForest, type ForestInput, type ForestLayout } from './forest/layout';
export { ForestView } from './forest/ForestView';
export { layoutHeatmap, type HostMatrix } from './heatmap/layout';
export { HeatmapChart } from './heatmap/HeatmapChart';
export {
  layoutServiceMap,
  callDepths,
  type MapEdge,
  type MapEdgeInput,
  type MapNode,
  type ServiceMapLayout,
} from './service-map/layout';
export { ServiceMapView } from './service-map/ServiceMapView';
export { layoutHeatMarks, type HeatMark, type HeatMarkBox } from './heatmap/marks';
export {
  layoutPercentileBars,
  type Estimate,
  type PercentileBarsLayout,
} from './percentile-bars/layout';
export { PercentileBarsView } from './percentile-bars/PercentileBarsView';
export { layoutWaterfall, type WaterfallLayout, type WaterfallRow } from './waterfall/layout';
export { WaterfallView } from './waterfall/WaterfallView';
export {
  layoutScatter,
  type ScatterDot,
  type ScatterLayout,
  type ScatterPoint,
} from './scatter/layout';
export { ScatterView } from './scatter/ScatterView';
export {
  layoutDiverging,
  type DivergingInput,
  type DivergingLayout,
  type DivergingRow,
} from './diverging/layout';
export { DivergingView } from './diverging/DivergingView';
export { quantileCurve, nines, type QuantilePoint } from './quantile-curve';
export * from './format';
export {
  renderOperationCharts,
  type ReportOperationCharts,
  type ReportStragglerRow,
} from './report';
export { layoutEvidence, type EvidenceLayout, type EvidenceSeriesInput } from './evidence/layout';
export { EvidenceView } from './evidence/EvidenceView';
export { layoutReading, type ReadingInput, type ReadingLayout } from './evidence/reading';
export { ReadingView } from './evidence/ReadingView';

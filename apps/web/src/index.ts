// @tailscope/web's entry for other packages (server-side HTML reports): the chart layouts and
// views, pure and free of CSS imports, and where the stylesheet their classes refer to lives.
export { layoutCdf, type CdfLayout, type CdfSeries } from './charts/cdf/layout';
export { CdfView } from './charts/cdf/CdfView';
export { layoutAmplification, type AmplificationLayout } from './charts/amplification/layout';
export { AmplificationView } from './charts/amplification/AmplificationView';
export { layoutForest, type ForestLayout } from './charts/forest/layout';
export { ForestView } from './charts/forest/ForestView';
export { layoutPercentileBars, type PercentileBarsLayout } from './charts/percentile-bars/layout';
export { PercentileBarsView } from './charts/percentile-bars/PercentileBarsView';
export { layoutDumbbell, type DumbbellLayout } from './charts/dumbbell/layout';
export { DumbbellView } from './charts/dumbbell/DumbbellView';
export { layoutWaterfall, type WaterfallLayout } from './charts/waterfall/layout';
export { WaterfallView } from './charts/waterfall/WaterfallView';
export { layoutHeatmap, type HostMatrix } from './charts/heatmap/layout';
export { drawHeatmap } from './charts/heatmap/draw';
export { quantileCurve, type QuantilePoint } from './model/quantile-curve';
export * from './charts/format';

/** The dashboard's stylesheet (palette, light and dark, chart classes), for inlining in HTML. */
export const STYLESHEET_URL: string = new URL('./styles.css', import.meta.url).href;

import type { MapEdge, ServiceMapLayout } from './layout';
import { ChartFrame } from '../ChartFrame';
import { clickable } from '../clickable';

/**
 * The service map as SVG: nodes as labelled boxes, edges as curves whose width follows calls/s,
 * each labelled with calls/s, p99, structure and width. An edge is a button when `onOpen` is
 * given (it opens that edge's views).
 */
export function ServiceMapView({
  layout,
  onOpen,
}: {
  layout: ServiceMapLayout;
  onOpen?: (edge: MapEdge) => void;
}) {
  const { f } = layout;
  return (
    <ChartFrame
      chart="service-map"
      className="ts-service-map"
      f={f}
      title="Service map: callers to callees"
      interactive={onOpen !== undefined}
    >
      <defs>
        <marker
          id="ts-map-arrow"
          viewBox="0 0 10 10"
          refX="9"
          refY="5"
          markerWidth="8"
          markerHeight="8"
          markerUnits="userSpaceOnUse"
          orient="auto-start-reverse"
        >
          <path d="M0,0 L10,5 L0,10 z" className="ts-map-arrow" />
        </marker>
      </defs>
      {layout.edges.map((e) => {
        const props = onOpen
          ? {
              ...clickable(() => {
                onOpen(e);
              }),
              'aria-label': `${e.parentService} to ${e.leafService}: ${e.label}`,
            }
          : {};
        return (
          <g
            key={e.key}
            className={`ts-map-edge is-${e.structure}${e.back ? ' is-back' : ''}${onOpen ? ' is-link' : ''}`}
            data-edge={e.key}
            {...props}
          >
            <title>{`${e.parentService} → ${e.leafService}: ${e.label}`}</title>
            <path d={e.path} className="ts-map-hit" fill="none" strokeWidth={12} />
            <path
              d={e.path}
              className="ts-map-line"
              fill="none"
              strokeWidth={e.strokeWidth}
              markerEnd="url(#ts-map-arrow)"
            />
            <text className="ts-map-label" x={e.labelX} y={e.labelY} textAnchor={e.anchor}>
              {e.label}
            </text>
          </g>
        );
      })}
      {layout.nodes.map((n) => (
        <g
          key={n.service}
          className="ts-map-node"
          transform={`translate(${String(n.x)},${String(n.y)})`}
        >
          <rect width={n.w} height={n.h} rx={6} />
          <text x={n.w / 2} y={n.h / 2} dy="0.32em" textAnchor="middle">
            {n.service}
          </text>
        </g>
      ))}
    </ChartFrame>
  );
}

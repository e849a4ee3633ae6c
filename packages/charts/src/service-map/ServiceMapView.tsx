import type { MapEdge, ServiceMapLayout } from './layout';

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
    <svg
      className="ts-chart ts-service-map"
      data-chart="service-map"
      width={f.width}
      height={f.height}
      viewBox={`0 0 ${String(f.width)} ${String(f.height)}`}
      role={onOpen ? 'group' : 'img'}
      aria-label="Service map: callers to callees"
    >
      <title>Service map: callers to callees</title>
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
              role: 'button',
              tabIndex: 0,
              'aria-label': `${e.parentService} to ${e.leafService}: ${e.label}`,
              onClick: () => {
                onOpen(e);
              },
              onKeyDown: (ev: { key: string }) => {
                if (ev.key === 'Enter') onOpen(e);
              },
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
    </svg>
  );
}

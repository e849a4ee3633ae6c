import { scaleLog } from 'd3-scale';
import { frame, px, type Frame } from '../frame';
import { formatMs } from '../format';

/**
 * The service map: services as nodes, caller -> callee edges between them, laid out in layers
 * by call depth (no force simulation: the same data always gives the same picture). A service
 * is in layer d when the shortest chain of calls from a service nobody calls reaches it in d
 * hops; when a cycle leaves no such service, the one calling most and called least starts.
 */

/** One caller service -> callee service edge, summed over their operations. */
export interface MapEdgeInput {
  parentService: string;
  leafService: string;
  callsPerSecond: number;
  /** Call latency p99, ms (the worst operation's). */
  p99Ms: number;
  /** The structure carrying most calls: parallel, pool, sequential or single. */
  structure: string;
  /** Calls per request on the edge (median over requests), the fan-out width. */
  width: number;
}

export interface MapNode {
  service: string;
  depth: number;
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface MapEdge extends MapEdgeInput {
  key: string;
  /** SVG path from the caller's right side to the callee's left side. */
  path: string;
  strokeWidth: number;
  labelX: number;
  labelY: number;
  /** SVG text-anchor of the label. */
  anchor: 'middle' | 'end';
  label: string;
  /** True when the callee is not in a later layer (a call back or sideways). */
  back: boolean;
}

export interface ServiceMapLayout {
  f: Frame;
  nodes: MapNode[];
  edges: MapEdge[];
}

const NODE_W = 150;
const NODE_H = 34;
const ROW_GAP = 34;

/** Layer of each service: BFS depth from the uncalled services (see the module comment). */
export function callDepths(services: readonly string[], edges: readonly MapEdgeInput[]) {
  const out = new Map<string, string[]>();
  const called = new Set<string>();
  for (const e of edges) {
    if (e.parentService === e.leafService) continue;
    out.set(e.parentService, [...(out.get(e.parentService) ?? []), e.leafService]);
    called.add(e.leafService);
  }
  const depth = new Map<string, number>();
  const sorted = [...services].sort();
  const walk = (starts: string[]): void => {
    let frontier = starts.filter((s) => !depth.has(s));
    for (const s of frontier) depth.set(s, 0);
    for (let d = 1; frontier.length > 0; d++) {
      const next: string[] = [];
      for (const s of frontier)
        for (const t of (out.get(s) ?? []).sort())
          if (!depth.has(t)) {
            depth.set(t, d);
            next.push(t);
          }
      frontier = next;
    }
  };
  walk(sorted.filter((s) => !called.has(s)));
  // What is left lies on cycles nobody outside reaches: start from the service that calls
  // most and is called least (the likeliest entry), then the next, until all have a layer.
  const balance = (s: string): number =>
    (out.get(s)?.length ?? 0) -
    edges.filter((e) => e.leafService === s && e.parentService !== s).length;
  for (;;) {
    const left = sorted.filter((s) => !depth.has(s));
    if (left.length === 0) break;
    left.sort((a, b) => balance(b) - balance(a));
    walk([left[0] ?? '']);
  }
  return depth;
}

/**
 * Geometry of the map for a width: layers left to right, services in a layer ordered by the
 * mean position of their callers (fewer crossings), then by name. Edge width grows with the
 * log of calls/s. O(services log services + edges).
 */
export function layoutServiceMap(
  edgesIn: readonly MapEdgeInput[],
  width: number,
): ServiceMapLayout {
  const services = [...new Set(edgesIn.flatMap((e) => [e.parentService, e.leafService]))];
  const depth = callDepths(services, edgesIn);
  const layers: string[][] = [];
  for (const s of services) {
    const d = depth.get(s) ?? 0;
    (layers[d] ??= []).push(s);
  }
  const row = new Map<string, number>();
  layers.forEach((layer, d) => {
    const mean = (s: string): number => {
      const ys = edgesIn
        .filter((e) => e.leafService === s && (depth.get(e.parentService) ?? 0) < d)
        .map((e) => row.get(e.parentService) ?? 0);
      return ys.length > 0 ? ys.reduce((a, b) => a + b, 0) / ys.length : 0;
    };
    layer.sort((a, b) => mean(a) - mean(b) || (a < b ? -1 : a > b ? 1 : 0));
    layer.forEach((s, i) => row.set(s, i));
  });
  const rows = Math.max(1, ...layers.map((l) => l.length));
  const f = frame(width, 24 + rows * (NODE_H + ROW_GAP) + 8, {
    top: 24,
    right: 16,
    bottom: 8,
    left: 16,
  });
  const columns = Math.max(1, layers.length);
  const colStep = columns > 1 ? (f.innerWidth - NODE_W) / (columns - 1) : 0;
  const nodes: MapNode[] = [];
  const at = new Map<string, MapNode>();
  layers.forEach((layer, d) => {
    const offset = ((rows - layer.length) * (NODE_H + ROW_GAP)) / 2;
    layer.forEach((s, i) => {
      const n: MapNode = {
        service: s,
        depth: d,
        x: px(f.left + d * colStep),
        y: px(f.top + offset + i * (NODE_H + ROW_GAP)),
        w: NODE_W,
        h: NODE_H,
      };
      nodes.push(n);
      at.set(s, n);
    });
  });
  const rates = edgesIn.map((e) => Math.max(e.callsPerSecond, 1e-3));
  const stroke = scaleLog()
    .domain([Math.min(...rates, 1), Math.max(...rates, 1) * 1.0001])
    .range([1.5, 8])
    .clamp(true);
  const edges = edgesIn.map((e): MapEdge => {
    const a = at.get(e.parentService);
    const b = at.get(e.leafService);
    const x0 = (a?.x ?? 0) + NODE_W;
    const y0 = (a?.y ?? 0) + NODE_H / 2;
    const x1 = b?.x ?? 0;
    const y1 = (b?.y ?? 0) + NODE_H / 2;
    const back = (b?.depth ?? 0) <= (a?.depth ?? 0);
    // A back edge loops under the nodes so it does not run through them.
    const bend = back ? Math.max(60, Math.abs(x0 - x1) / 2) : Math.max(30, (x1 - x0) / 2);
    const path = back
      ? `M${px(x0)},${px(y0)} C${px(x0 + bend)},${px(y0 + NODE_H * 1.5)} ${px(x1 - bend)},${px(y1 + NODE_H * 1.5)} ${px(x1)},${px(y1)}`
      : `M${px(x0)},${px(y0)} C${px(x0 + bend)},${px(y0)} ${px(x1 - bend)},${px(y1)} ${px(x1)},${px(y1)}`;
    const widthText = e.width > 1 ? ` ×${String(Math.round(e.width))}` : '';
    return {
      ...e,
      key: `${e.parentService}->${e.leafService}`,
      path,
      strokeWidth: px(stroke(Math.max(e.callsPerSecond, 1e-3))),
      // Forward labels sit just before the callee, above the line: the callees of one caller
      // are a row apart there, while near the caller all its edges start at one point.
      labelX: px(back ? (x0 + x1) / 2 : x1 - 10),
      labelY: px(back ? (y0 + y1) / 2 + NODE_H * 1.1 : y1 - 7),
      anchor: back ? 'middle' : 'end',
      label: `${callRate(e.callsPerSecond)} · p99 ${formatMs(e.p99Ms)} · ${e.structure}${widthText}`,
      back,
    };
  });
  return { f, nodes, edges };
}

/** Calls per second, per minute when below one. */
function callRate(perSecond: number): string {
  if (perSecond >= 100) return `${String(Math.round(perSecond))}/s`;
  if (perSecond >= 1) return `${perSecond.toFixed(1)}/s`;
  return `${(perSecond * 60).toFixed(1)}/min`;
}

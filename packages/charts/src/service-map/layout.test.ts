import { describe, expect, it } from 'vitest';
import { callDepths, layoutServiceMap, type MapEdgeInput } from './layout';

/** HotROD-like: frontend calls customer, driver, route; customer calls mysql; driver redis. */
const hotrodLike: MapEdgeInput[] = [
  {
    parentService: 'frontend',
    leafService: 'route',
    callsPerSecond: 30,
    p99Ms: 80,
    structure: 'pool',
    width: 10,
  },
  {
    parentService: 'frontend',
    leafService: 'customer',
    callsPerSecond: 3,
    p99Ms: 900,
    structure: 'single',
    width: 1,
  },
  {
    parentService: 'frontend',
    leafService: 'driver',
    callsPerSecond: 3,
    p99Ms: 300,
    structure: 'single',
    width: 1,
  },
  {
    parentService: 'customer',
    leafService: 'mysql',
    callsPerSecond: 3,
    p99Ms: 850,
    structure: 'single',
    width: 1,
  },
  {
    parentService: 'driver',
    leafService: 'redis',
    callsPerSecond: 36,
    p99Ms: 40,
    structure: 'sequential',
    width: 12,
  },
];

describe('callDepths', () => {
  it('puts each service at its shortest call depth from the uncalled ones', () => {
    const services = ['mysql', 'redis', 'route', 'customer', 'driver', 'frontend'];
    const d = callDepths(services, hotrodLike);
    expect(Object.fromEntries(d)).toEqual({
      frontend: 0,
      customer: 1,
      driver: 1,
      route: 1,
      mysql: 2,
      redis: 2,
    });
  });

  it('gives services on a cycle nobody reaches a depth too', () => {
    const cyc: MapEdgeInput[] = [
      {
        parentService: 'a',
        leafService: 'b',
        callsPerSecond: 1,
        p99Ms: 1,
        structure: 'single',
        width: 1,
      },
      {
        parentService: 'b',
        leafService: 'a',
        callsPerSecond: 1,
        p99Ms: 1,
        structure: 'single',
        width: 1,
      },
    ];
    expect(Object.fromEntries(callDepths(['b', 'a'], cyc))).toEqual({ a: 0, b: 1 });
  });
});

describe('layoutServiceMap', () => {
  const l = layoutServiceMap(hotrodLike, 900);
  const node = (s: string) => l.nodes.find((n) => n.service === s);

  it('lays services out left to right by depth, inside the frame', () => {
    expect(l.nodes).toHaveLength(6);
    expect(node('frontend')?.x).toBeLessThan(node('customer')?.x ?? 0);
    expect(node('customer')?.x).toBeLessThan(node('mysql')?.x ?? 0);
    for (const n of l.nodes) {
      expect(n.x).toBeGreaterThanOrEqual(l.f.left);
      expect(n.x + n.w).toBeLessThanOrEqual(l.f.right + 0.1);
      expect(n.y + n.h).toBeLessThanOrEqual(l.f.bottom + 0.1);
    }
  });

  it('orders a layer by its callers so mysql sits by customer and redis by driver', () => {
    const byY = (a: string, b: string) => (node(a)?.y ?? 0) - (node(b)?.y ?? 0);
    expect(Math.sign(byY('mysql', 'redis'))).toBe(Math.sign(byY('customer', 'driver')));
  });

  it('labels edges with calls/s, p99, structure and width; wider for busier edges', () => {
    const route = l.edges.find((e) => e.key === 'frontend->route');
    const customer = l.edges.find((e) => e.key === 'frontend->customer');
    expect(route?.label).toBe('30.0/s · p99 80 ms · pool ×10');
    expect(customer?.label).toContain('single');
    expect(customer?.label).not.toContain('×');
    expect(route?.strokeWidth).toBeGreaterThan(customer?.strokeWidth ?? Infinity);
    expect(route?.path.startsWith(`M${String((node('frontend')?.x ?? 0) + 150)},`)).toBe(true);
    expect(l.edges.every((e) => !e.back)).toBe(true);
  });

  it('marks calls back to an earlier layer', () => {
    const back = layoutServiceMap(
      [
        ...hotrodLike,
        {
          parentService: 'mysql',
          leafService: 'frontend',
          callsPerSecond: 0.1,
          p99Ms: 5,
          structure: 'single',
          width: 1,
        },
      ],
      900,
    );
    expect(back.nodes.find((n) => n.service === 'frontend')?.depth).toBe(0);
    expect(back.edges.find((e) => e.key === 'mysql->frontend')?.back).toBe(true);
  });
});

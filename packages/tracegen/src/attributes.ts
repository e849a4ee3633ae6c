/** The resources and span attributes a run emits, as key/value lists both encoders render. */
import type { Plan } from './plan';

export type Attributes = [key: string, value: string][];

export const scope = { name: '@tailscope/tracegen', version: '0.1.0' };

export interface RunAttributes {
  /** Root hosts first, then leaf hosts (the resource index of groupSpans). */
  resources: Attributes[];
  root: Attributes;
  /** Per leaf host: the CLIENT span's attributes. */
  client: Attributes[];
  /** Per build id: the leaf SERVER span's attributes. */
  server: Attributes[];
  /** Per activity: the background span's attributes. */
  background: Attributes[];
}

export function runAttributes(plan: Plan): RunAttributes {
  const { spec } = plan;
  const zones = spec.decoys.zones;
  return {
    resources: [
      ...plan.rootHosts.map((name, i): Attributes => [
        ['service.name', spec.root.service],
        ['host.name', name],
        ['host.sharing_mode', 'dedicated'],
        ['deploy.zone', zones[i % zones.length] ?? ''],
      ]),
      ...plan.hosts.map((h): Attributes => [
        ['service.name', spec.leaf.service],
        ['host.name', h.name],
        ['host.sharing_mode', h.sharingMode],
        ['deploy.zone', h.zone],
      ]),
    ],
    root: [],
    client: plan.hosts.map((h): Attributes => [
      ['server.address', h.name],
      ['peer.service', spec.leaf.service],
    ]),
    server: spec.decoys.buildIds.map((id): Attributes => [['build.id', id]]),
    background: plan.activities.map((a): Attributes => [['background.activity', a.name]]),
  };
}

/**
 * The `microservices` application: services, their hosts (one pod each, except the parallel
 * fan-out's service), and every span template (name, kind, attributes) its requests use. Shaped
 * after what real applications send: HotROD's frontend (wrapper spans around OpenTracing-bridge
 * INTERNAL HTTP calls, a worker pool, a sequential Redis loop) plus a parallel quote fan-out and
 * a Kafka message with two consumers.
 */
import type { Attributes } from './attributes';
import type { AppSpec } from './spec';

/** OTLP span kinds. */
export const Kind = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;
export const kindNames = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];

export interface SpanTemplate {
  service: string;
  name: string;
  kind: number;
  attributes: Attributes;
}

export interface AppTopology {
  /** Resource attributes, one entry per (service, host). */
  resources: Attributes[];
  services: { name: string; hosts: string[]; resources: number[] }[];
  templates: SpanTemplate[];
  /** Template index by role; `quote` has one template per pricing host (its url differs). */
  t: {
    root: number;
    customerWrap: number;
    customerHttp: number;
    customerServer: number;
    mysql: number;
    driverClient: number;
    driverServer: number;
    redisFind: number;
    redisGet: number;
    routeWrap: number;
    routeHttp: number;
    routeServer: number;
    quote: number[];
    quoteServer: number;
    publish: number;
    notify: number;
    audit: number;
  };
  r: {
    frontend: number;
    customer: number;
    driver: number;
    route: number;
    pricing: number[];
    notifier: number;
    audit: number;
  };
}

export const appNames = {
  root: 'HTTP GET /dispatch',
  customer: 'HTTP GET /customer',
  route: 'HTTP GET /route',
  driver: '/driver.DriverService/FindNearest',
  quote: 'GET /quote',
  topic: 'dispatch.events',
} as const;

const host = (service: string, i: number) => `${service}-${String(i).padStart(2, '0')}`;

export function appTopology(app: AppSpec): AppTopology {
  const resources: Attributes[] = [];
  const services: AppTopology['services'] = [];
  const service = (name: string, count: number): number[] => {
    const s = { name, hosts: [] as string[], resources: [] as number[] };
    for (let i = 0; i < count; i++) {
      s.hosts.push(host(name, i));
      s.resources.push(resources.length);
      resources.push([
        ['service.name', name],
        ['host.name', host(name, i)],
      ]);
    }
    services.push(s);
    return s.resources;
  };
  const one = (name: string) => service(name, 1)[0] ?? 0;
  const r = {
    frontend: one('frontend'),
    customer: one('customer'),
    driver: one('driver'),
    route: one('route'),
    pricing: service('pricing', app.parallelHosts),
    notifier: one('notifier'),
    audit: one('audit'),
  };

  const templates: SpanTemplate[] = [];
  const tpl = (service: string, name: string, kind: number, attributes: Attributes = []) =>
    templates.push({ service, name, kind, attributes }) - 1;
  const redis = (op: string) =>
    tpl('driver', op, Kind.client, [
      ['db.system', 'redis'],
      ['peer.service', 'redis'],
      ['server.address', 'redis-00'],
    ]);
  const kafka: Attributes = [
    ['messaging.system', 'kafka'],
    ['messaging.destination.name', appNames.topic],
  ];
  const t = {
    root: tpl('frontend', appNames.root, Kind.server, [
      ['http.method', 'GET'],
      ['http.target', '/dispatch'],
    ]),
    // HotROD's tracing HTTP client: a wrapper per call, then the OpenTracing bridge's span,
    // a client call sent as INTERNAL with the client attributes.
    customerWrap: tpl('frontend', 'HTTP GET: /customer', Kind.internal),
    customerHttp: tpl('frontend', 'HTTP GET', Kind.internal, [
      ['http.method', 'GET'],
      ['http.url', 'http://customer-00:8081/customer?customer=123'],
    ]),
    customerServer: tpl('customer', appNames.customer, Kind.server, [['http.method', 'GET']]),
    mysql: tpl('customer', 'SQL SELECT', Kind.client, [
      ['db.system', 'mysql'],
      ['peer.service', 'mysql'],
      ['server.address', 'mysql-00'],
    ]),
    driverClient: tpl('frontend', appNames.driver, Kind.client, [
      ['rpc.system', 'grpc'],
      ['rpc.service', 'driver.DriverService'],
      ['rpc.method', 'FindNearest'],
      ['peer.service', 'driver'],
      ['server.address', 'driver-00'],
    ]),
    driverServer: tpl('driver', appNames.driver, Kind.server, [['rpc.system', 'grpc']]),
    redisFind: redis('FindDriverIDs'),
    redisGet: redis('GetDriver'),
    routeWrap: tpl('frontend', 'HTTP GET: /route', Kind.internal),
    routeHttp: tpl('frontend', 'HTTP GET', Kind.internal, [
      ['http.method', 'GET'],
      ['http.url', 'http://route-00:8083/route?dropoff=577,322&pickup=728,326'],
    ]),
    routeServer: tpl('route', appNames.route, Kind.server, [['http.method', 'GET']]),
    quote: Array.from({ length: app.parallelHosts }, (_, i) =>
      tpl('frontend', appNames.quote, Kind.client, [
        ['http.request.method', 'GET'],
        ['url.full', `http://${host('pricing', i)}:8090/quote`],
        ['server.address', host('pricing', i)],
        ['peer.service', 'pricing'],
      ]),
    ),
    quoteServer: tpl('pricing', appNames.quote, Kind.server, [['http.request.method', 'GET']]),
    publish: tpl('frontend', `${appNames.topic} publish`, Kind.producer, [
      ...kafka,
      ['messaging.operation', 'publish'],
      ['peer.service', 'kafka'],
      ['server.address', 'kafka-00'],
    ]),
    notify: tpl('notifier', `${appNames.topic} process`, Kind.consumer, [
      ...kafka,
      ['messaging.operation', 'process'],
    ]),
    audit: tpl('audit', `${appNames.topic} process`, Kind.consumer, [
      ...kafka,
      ['messaging.operation', 'process'],
    ]),
  };
  return { resources, services, templates, t, r };
}

/** Spans per request before duplicates. */
export function spansPerRequest(app: AppSpec): number {
  // root; customer 4; driver 3 + loop; route 3 per call; pricing 2 per host; publish + 2.
  return 1 + 4 + 3 + app.loopCalls + 3 * app.poolCalls + 2 * app.parallelHosts + 3;
}

const topologies = new WeakMap<AppSpec, AppTopology>();

/** The topology of an application spec, built once (the encoders ask per batch). */
export function topologyOf(app: AppSpec): AppTopology {
  let topo = topologies.get(app);
  if (!topo) {
    topo = appTopology(app);
    topologies.set(app, topo);
  }
  return topo;
}

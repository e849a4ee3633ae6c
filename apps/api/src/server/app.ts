import { API_PATHS } from '@tailscope/contracts';
import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { HttpError, nonFiniteQueryCheck, validationMessage } from '../foundation';
import { budgetKindOf, QueryBudgetError } from '../store/engine/budget';
import type { ApiContext, RoutePlugin } from '../routes/context';
import type { SelfTracer } from './self-trace';
import type { Store } from '../store';
import { loadSettings, type Settings } from '../config';
import { healthRoutes } from '../routes/health';
import { traceRoutes } from '../routes/traces';
import { statsRoutes } from '../routes/stats';
import { webRoutes } from '../routes/web';
import { fanoutRoutes } from '../routes/fanouts';
import { edgeRoutes } from '../routes/edges';
import { stragglerRoutes } from '../routes/stragglers';
import { hostRoutes } from '../routes/hosts';
import { leavesRoutes } from '../routes/leaves';
import { whatIfRoutes } from '../routes/whatif';
import { sessionRoutes } from '../routes/session';
import { installAccess } from './access';
import { ServerMetrics } from './metrics';
import { criticalPathRoutes } from '../routes/critical-path';
import { admitted, workClassOf } from './admit';
import { keepLiveAnswers } from './live-answers';
import { BusyError } from '../store/engine/admission';
import { episodeRoutes } from '../routes/episodes';
import { incidentRoutes } from '../routes/incidents';

export type Api = FastifyInstance;

/** A registered route as Fastify saw it: what the OpenAPI test compares the document with. */
export interface RegisteredRoute {
  method: string;
  url: string;
  schema: Record<string, unknown> | undefined;
}
const registered = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** The routes `buildApi` registered (hidden ones included), in registration order. */
export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return registered.get(app) ?? [];
}

const routeGroups: RoutePlugin[] = [healthRoutes, statsRoutes, traceRoutes, webRoutes];
routeGroups.push(fanoutRoutes);
routeGroups.push(edgeRoutes);
routeGroups.push(stragglerRoutes);
routeGroups.push(hostRoutes);
routeGroups.push(leavesRoutes);
routeGroups.push(whatIfRoutes);
routeGroups.push(sessionRoutes);
routeGroups.push(criticalPathRoutes);
routeGroups.push(episodeRoutes);
routeGroups.push(incidentRoutes);

export async function buildApi(
  ctx: ApiContext,
  opts: {
    logger?: boolean | object;
    selfTrace?: SelfTracer;
    metrics?: ServerMetrics;
    /** PEM certificate and key: the API speaks HTTPS. */
    https?: { cert: Buffer; key: Buffer };
  } = {},
): Promise<Api> {
  const app = Fastify({
    logger: opts.logger ?? false,
    ...(opts.https ? { https: opts.https } : {}),
    // verbose: errors carry the schema and the value, so the 400 can name the bounds.
    ajv: {
      customOptions: {
        coerceTypes: true,
        removeAdditional: false,
        allErrors: false,
        verbose: true,
      },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  const routes: RegisteredRoute[] = [];
  registered.set(app, routes);
  keepLiveAnswers(app, ctx.store);
  app.addHook('onRoute', (r) => {
    const check = nonFiniteQueryCheck(r.schema?.querystring);
    if (check) r.preValidation = [check, ...[r.preValidation ?? []].flat()];
    // Analyses and cheap answers wait at their own gates (admit.ts, store/admission.ts).
    const workClass = workClassOf(r.url);
    if (workClass) r.handler = admitted(r.handler, workClass, ctx.store);
    for (const method of [r.method].flat())
      routes.push({ method, url: r.url, schema: r.schema as Record<string, unknown> | undefined });
  });

  opts.selfTrace?.instrument(app);
  // Timed first, so requests the access checks refuse (401, 403, 421) are counted too.
  const metrics = opts.metrics ?? new ServerMetrics();
  metrics.watch({ store: ctx.store });
  metrics.instrument(app);
  // Headers, the Host and cross-origin checks and the API token, before any route (access.ts).
  await installAccess(app, ctx.settings);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Tailscope API',
        version: '1',
        description:
          'Fan-out tail latency analysis over OpenTelemetry traces stored in ClickHouse.',
      },
    },
  });

  // One error handler: validation errors name the bad parameter, HttpErrors carry their own
  // status, anything else is a 500 whose details stay in the log.
  app.setErrorHandler((err: unknown, req, reply) => {
    // A query stopped by the budget outside Store.query (raw client calls): the same answer.
    const overBudget = budgetKindOf(err);
    if (overBudget !== null) err = new QueryBudgetError(overBudget, ctx.store.budget);
    // The client went away first: nobody to answer and nothing wrong here; not an error log.
    if (reply.raw.destroyed) {
      req.log.info({ err }, 'client closed the request before its answer');
      return reply.status(499).send();
    }
    // A full queue: when to ask again (an estimate from the slots' recent hold times).
    if (err instanceof BusyError) void reply.header('retry-after', String(err.retryAfterSeconds));
    if (err instanceof HttpError)
      return reply.status(err.statusCode).send({ error: err.message, statusCode: err.statusCode });
    const e = err as {
      validation?: Parameters<typeof validationMessage>[0];
      validationContext?: string;
      message?: string;
      statusCode?: number;
    };
    if (e.validation) {
      return reply.status(400).send({
        error: validationMessage(e.validation, e.validationContext ?? 'request'),
        statusCode: 400,
      });
    }
    if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
      return reply
        .status(e.statusCode)
        .send({ error: e.message ?? 'bad request', statusCode: e.statusCode });
    }
    req.log.error(err);
    return reply.status(500).send({ error: 'internal error', statusCode: 500 });
  });

  for (const group of routeGroups) {
    await app.register(async (scope) => {
      await group(scope, ctx);
    });
  }

  app.get(API_PATHS.openapi.path, { schema: { hide: true } }, () => app.swagger());
  // Prometheus text format, not JSON: outside the OpenAPI document (docs/operations.md).
  app.get('/metrics', { schema: { hide: true } }, async (_req, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
  await app.ready();
  return app;
}

/**
 * The API over a store this process already opened and migrated, with no ingest beside it:
 * what reports (in-process) and the route tests ask. Always ready; ingest rate 0.
 */
export function buildStoreApi(store: Store, settings: Settings = loadSettings({})): Promise<Api> {
  return buildApi({ store, settings, ready: () => true, ingestRate: () => 0 });
}

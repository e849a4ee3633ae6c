import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ApiContext } from './context';

/**
 * The Fastify instance route plugins register on: typed by the TypeBox provider, so a handler's
 * `req.query`, `req.params` and `req.body` have the types of its schemas in @tailscope/contracts.
 */
export type RouteApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Route groups, one Fastify plugin each. */
export type RoutePlugin = (app: RouteApp, ctx: ApiContext) => Promise<void> | void;

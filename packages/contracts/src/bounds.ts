import { Type, type Static } from 'typebox';

/**
 * Input bounds shared by every route: each number has a finite minimum and maximum, each string
 * a maxLength, each array a maxItems, so no single request can ask for unbounded work.
 */

/** Oldest and newest instants a query may name: 1970-01-01 and 2200-01-01 (epoch ms). */
export const TIME_MIN_MS = 0;
export const TIME_MAX_MS = Date.UTC(2200, 0, 1);

/** Longest service, operation or attribute name a query may carry. */
export const MAX_NAME_LENGTH = 512;
/** Longest comma-separated list parameter (`by`, `attrs`). */
export const MAX_LIST_LENGTH = 2048;
/** Longest time parameter text (`2200-01-01T00:00:00.000000000+00:00` fits). */
export const MAX_TIME_LENGTH = 40;
/** Largest duration a threshold or delay may name, ms: one year. */
export const MAX_DURATION_MS = 366 * 86_400_000;
/** Seeds are unsigned 32-bit on the query routes. */
export const MAX_SEED = 4_294_967_295;

/** A service / operation / attribute name. */
export const Name = (description: string, minLength = 0) =>
  Type.String({ maxLength: MAX_NAME_LENGTH, ...(minLength > 0 ? { minLength } : {}), description });

/** A `from` / `to` query parameter: epoch ms digits or ISO-8601 text, 1970..2200. */
export const TimeText = (description: string) =>
  Type.String({ minLength: 1, maxLength: MAX_TIME_LENGTH, description });

/** Query parameters every analysis route shares. */
export const RangeQuery = {
  from: Type.Optional(
    TimeText(
      'Start: epoch milliseconds or ISO-8601, between 1970-01-01 and 2200-01-01. Default: one hour before `to`.',
    ),
  ),
  to: Type.Optional(
    TimeText(
      'End (exclusive): epoch milliseconds or ISO-8601, between 1970-01-01 and 2200-01-01. Default: now.',
    ),
  ),
};

/** The body of every 4xx / 5xx answer: a message naming what is wrong. */
export const ErrorBody = Type.Object(
  { error: Type.String(), statusCode: Type.Integer() },
  { description: 'What went wrong; a 400 names the bad field' },
);
export type ErrorBody = Static<typeof ErrorBody>;

/** Quantiles (type 7) across fan-outs, ms. */
export const Quantiles = Type.Object(
  { p50: Type.Number(), p95: Type.Number(), p99: Type.Number(), p999: Type.Number() },
  { description: 'Quantiles (type 7) across fan-outs, ms' },
);
export type Quantiles = Static<typeof Quantiles>;

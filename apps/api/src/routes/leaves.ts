import {
  API_PATHS,
  LEAVES_CONTENT_TYPE,
  LeavesRoute,
  MAX_ATTRIBUTE_KEYS,
} from '@tailscope/contracts';
import { packLeafCalls } from '@tailscope/analysis';
import type { ApiContext } from './context';
import { badRequest, type RouteApp, parseRange, requireText } from '../foundation';
import { loadLeafCalls } from '../store/fanouts';
import { clampRange } from './clamp-range';
import { rangeSampling } from './sampling';
import { cachedAnswer } from '../cache';

/** `a,b,c` -> distinct non-empty keys, at most MAX_ATTRIBUTE_KEYS (400 names `name`). */
function parseAttributeKeys(name: string, raw: string | undefined): string[] {
  if (raw === undefined || raw === '') return [];
  const keys = [...new Set(raw.split(',').map((k) => k.trim()))];
  if (keys.some((k) => k === ''))
    throw badRequest(`${name} has an empty attribute key: ${JSON.stringify(raw)}`);
  if (keys.length > MAX_ATTRIBUTE_KEYS)
    throw badRequest(`${name} takes at most ${MAX_ATTRIBUTE_KEYS} keys, got ${keys.length}`);
  return keys;
}

export function leavesRoutes(app: RouteApp, ctx: ApiContext): void {
  app.get(API_PATHS.leaves.path, { schema: LeavesRoute }, async (req, reply) => {
    const q = req.query;
    const leafService = requireText('leafService', q.leafService);
    const leafOperation = requireText('leafOperation', q.leafOperation);
    const range = await clampRange(ctx.store, parseRange(q, Date.now()));
    const attributeKeys = parseAttributeKeys('attrs', q.attrs);
    const params = {
      leafService,
      leafOperation,
      attributeKeys,
      maxFanouts: q.maxFanouts ?? 200_000,
      f32: q.precision === 'f32',
      asked: [range.fromMs, range.toMs],
    };
    const packed = await cachedAnswer(ctx.store, 'leaves', params, range, async () => {
      // With sampled spans in range, the packed calls carry a `weights` column (per fan-out
      // adjusted count), which the browser's simulateWhatIf weights its percentiles by.
      const sampling = await rangeSampling(ctx.store, range);
      const loaded = await loadLeafCalls(
        ctx.store,
        { fromNs: range.fromNs, toNs: range.toNs, leafService, leafOperation },
        { attributeKeys, maxFanouts: params.maxFanouts, weights: sampling.weighted },
      );
      const meta = {
        leafService,
        leafOperation,
        from: range.fromMs,
        to: range.toMs,
        sampled: loaded.sampled,
        sampling,
      };
      const body = packLeafCalls(loaded.calls, meta, { float32: params.f32 });
      return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    });
    return reply.header('content-type', LEAVES_CONTENT_TYPE).send(packed);
  });
}

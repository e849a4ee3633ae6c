import type { Store } from '../engine/client';
import type { Sql } from './template';
import { withStages } from '../engine/stages';

/**
 * Runs a query under the store's budget and returns its RowBinary body (over HTTP and with
 * chDB alike). For answers too large to parse as JSON rows on the event loop.
 */
export async function execRowBinary(store: Store, q: Sql): Promise<Buffer> {
  // Under the budget and the request's class, deadline and cancellation (store.call).
  const params = store.params(q);
  return store.call((o, on) =>
    withStages(on, q.text, params, o, store.staging, async (text, opts) => {
      const rs = await on.exec({
        query: `${text}\nFORMAT RowBinary`,
        query_params: params,
        ...opts,
      });
      const chunks: Buffer[] = [];
      for await (const chunk of rs.stream as AsyncIterable<Buffer | string>) {
        chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
      }
      return Buffer.concat(chunks);
    }),
  );
}

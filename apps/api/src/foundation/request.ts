import type { FastifyReply } from 'fastify';

/** Aborts when the client goes away before the reply is written, so its work stops. */
export function clientGone(reply: FastifyReply): AbortSignal {
  const ac = new AbortController();
  if (reply.raw.destroyed && !reply.raw.writableFinished) ac.abort();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) ac.abort();
  });
  return ac.signal;
}

/**
 * `/v1/ledger`: query, verify, and a Server-Sent Events stream.
 *
 * Stream: `GET /v1/ledger/stream?tenant=&event_types=a,b`. Each event is sent
 * as `id: <seq>`, `event: <type>`, `data: <event JSON>`. Reconnecting with
 * `Last-Event-ID: <seq>` resumes after that event; without it the stream
 * starts at new events (`?from_seq=0` replays from the beginning). Events
 * committed by other processes arrive within a second (`followLedger` polls).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { SvcApp } from '../../app.ts';
import { followLedger } from '../../ledger/follow.ts';
import { LedgerQueryBody } from '../../ledger/service.ts';
import { optionalInt, optionalList } from '../query.ts';
import { ctx } from '../request-context.ts';

const KEEPALIVE_MS = 15_000;

export async function ledgerRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  const doc = { attachValidation: true } as const;

  // Open streams end when the server shuts down (they would otherwise hold it open).
  const open = new Set<AbortController>();
  server.addHook('preClose', async () => {
    for (const c of open) c.abort();
  });

  server.post('/v1/ledger/query', { ...doc, schema: { tags: ['ledger'], summary: 'Query ledger events', body: LedgerQueryBody } }, async (request) =>
    app.ledgerService.query(ctx(request), request.body ?? {}),
  );

  server.post('/v1/ledger/verify', { schema: { tags: ['ledger'], summary: 'Verify the whole hash chain' } }, async (request) => app.ledgerService.verify(ctx(request)));

  server.get(
    '/v1/ledger/stream',
    {
      ...doc,
      schema: {
        tags: ['ledger'],
        summary: 'Live ledger events (text/event-stream), resumable with Last-Event-ID',
        querystring: Type.Object({ tenant: Type.Optional(Type.String()), event_types: Type.Optional(Type.String()), from_seq: Type.Optional(Type.Integer({ minimum: 0 })) }),
      },
    },
    async (request, reply) => {
      const q = request.query as Record<string, string | undefined>;
      const filter = await app.ledgerService.streamFilter(ctx(request), q.tenant, optionalList(q.event_types));
      const lastEventId = optionalInt(request.headers['last-event-id'], 'Last-Event-ID');
      const cursor = lastEventId ?? optionalInt(q.from_seq, 'from_seq') ?? (await app.ledgerService.headSeq());

      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
        'X-SVC-Trace-ID': request.traceId,
      });
      res.write(': svc ledger stream\n\n');
      const stop = new AbortController();
      open.add(stop);
      const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
      request.raw.on('close', () => stop.abort());
      res.on('close', () => stop.abort());
      try {
        for await (const e of followLedger(app.ledgerService, filter, cursor, stop.signal)) {
          res.write(`id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
        }
      } catch {
        // The database went away mid-stream: end the stream; the client resumes with Last-Event-ID.
      } finally {
        clearInterval(keepalive);
        open.delete(stop);
        res.end();
      }
    },
  );
}

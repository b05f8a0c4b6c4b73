/**
 * `/v1/ledger`: query, verify, and a Server-Sent Events stream.
 *
 * Stream: `GET /v1/ledger/stream?tenant=&event_types=a,b`. Each event is sent
 * as `id: <seq>`, `event: <type>`, `data: <event JSON>`. Reconnecting with
 * `Last-Event-ID: <seq>` resumes after that event; without it the stream
 * starts at new events (`?from_seq=0` replays from the beginning).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { SvcApp } from '../../app.ts';
import { LedgerQueryBody } from '../../ledger/service.ts';
import { optionalInt, optionalList } from '../query.ts';
import { ctx } from '../request-context.ts';

const POLL_MS = 1000;
const KEEPALIVE_MS = 15_000;

export async function ledgerRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  const doc = { attachValidation: true } as const;

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
      let cursor = lastEventId ?? optionalInt(q.from_seq, 'from_seq') ?? (await app.store.ledger.head())?.seq ?? 0;

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

      let closed = false;
      let pumping = false;
      let again = false;
      const pump = async () => {
        if (pumping) {
          again = true;
          return;
        }
        pumping = true;
        try {
          do {
            again = false;
            for (;;) {
              const page = await app.ledgerService.since(filter, cursor);
              for (const e of page.events) res.write(`id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
              if (page.lastSeq === cursor) break;
              cursor = page.lastSeq;
            }
          } while (again && !closed);
        } catch {
          if (!closed) res.end();
          closed = true;
        } finally {
          pumping = false;
        }
      };
      const unsubscribe = app.ledgerService.subscribe(() => void pump());
      const poll = setInterval(() => void pump(), POLL_MS);
      const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
      const stop = () => {
        closed = true;
        unsubscribe();
        clearInterval(poll);
        clearInterval(keepalive);
      };
      request.raw.on('close', stop);
      res.on('close', stop);
      await pump();
    },
  );
}

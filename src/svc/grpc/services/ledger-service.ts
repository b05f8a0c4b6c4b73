/**
 * svc.v1.LedgerService — the gRPC form of `/v1/ledger` (route ledger.ts):
 * query, whole-chain verification, and a live stream that resumes after a
 * sequence number.
 */
import type { LedgerServiceHandlers } from '../generated/svc/v1/LedgerService.ts';
import type { LedgerServiceStreamResponse } from '../generated/svc/v1/LedgerServiceStreamResponse.ts';
import { followLedger } from '../../ledger/follow.ts';
import { toLedgerEventMessage } from '../mapping/record-messages.ts';
import { nonEmptyList, optional, restBody } from '../mapping/rest-body.ts';
import { toOptionalStruct } from '../mapping/struct.ts';
import { type GrpcRuntime, type MessageSink, serverStream, unary } from '../rpc-handlers.ts';

export function ledgerService(rt: GrpcRuntime): LedgerServiceHandlers {
  const { app } = rt;
  return {
    Query: unary(rt, 'LedgerService/Query', async (ctx, req) => {
      const r = await app.ledgerService.query(
        ctx,
        restBody({ tenant: req.tenant, from: req.from, to: req.to, event_types: nonEmptyList(req.event_types), after_seq: req.after_seq, limit: req.limit }),
      );
      return { events: r.events.map(toLedgerEventMessage), next_after_seq: optional(r.next_after_seq) };
    }),

    Verify: unary(rt, 'LedgerService/Verify', async (ctx) => {
      const r = await app.ledgerService.verify(ctx);
      return {
        result: {
          ok: r.ok,
          checked: r.checked,
          head_hash: r.headHash,
          first_break: toOptionalStruct(r.firstBreak),
          first_bad_event_id: r.first_bad_event_id,
          duration_ms: r.duration_ms,
        },
      };
    }),

    // Without `after_seq` the stream starts at the current head (new events only), as the SSE route does without Last-Event-ID.
    Stream: serverStream(rt, 'LedgerService/Stream', async (ctx, req, sink: MessageSink<LedgerServiceStreamResponse>) => {
      const filter = await app.ledgerService.streamFilter(ctx, req.tenant, nonEmptyList(req.event_types)?.slice());
      const afterSeq = req.after_seq ?? (await app.ledgerService.headSeq());
      const until = AbortSignal.any([sink.signal, rt.closing]);
      for await (const event of followLedger(app.ledgerService, filter, afterSeq, until)) {
        await sink.write({ event: toLedgerEventMessage(event) });
      }
    }),
  };
}

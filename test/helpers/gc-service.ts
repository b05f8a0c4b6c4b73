/**
 * A garbage collector over a running test server's own store and index,
 * with some `gc.*` settings changed and, optionally, its own clock: the same
 * service as the server's, as it would run with that configuration.
 */
import { PackedChunkStore } from '../../src/svc/chunk-store/packed-chunk-store.ts';
import type { SvcConfig } from '../../src/svc/config/schema.ts';
import { GcService } from '../../src/svc/gc/gc-service.ts';
import type { TestServer } from './server.ts';

export function gcServiceOf(s: TestServer, gc: Partial<SvcConfig['gc']>, now?: () => Date): GcService {
  const app = s.app;
  return new GcService({
    config: { ...app.config, gc: { ...app.config.gc, ...gc } },
    store: app.objects.chunkBackend.store instanceof PackedChunkStore ? app.objects.chunkBackend.store : undefined,
    index: app.store.chunkPacks,
    leases: app.store.leases,
    manifests: app.store.manifests,
    legalHolds: app.store.legalHolds,
    multipart: app.objects.multipart,
    ledger: app.ledger,
    ...(now ? { now } : {}),
  });
}

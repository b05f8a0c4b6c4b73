/**
 * Child-process entry for the AI benchmarks: runs the deterministic mock
 * upstream (test/fixtures/mock-openai) in its own process, so its CPU time
 * is not charged to the gateway being measured. Prints one JSON line
 * `{"url": …}` when listening; exits when the parent disconnects.
 */
import { startMockOpenAI } from '../../test/fixtures/mock-openai/mock-openai-server.ts';

const mock = await startMockOpenAI({ latencyMs: Number(process.env.MOCK_LATENCY_MS ?? 0) });
process.send?.({ url: mock.url });
process.on('disconnect', () => {
  void mock.close().finally(() => process.exit(0));
});

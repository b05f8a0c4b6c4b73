/**
 * `node tools/mock-openai-upstream/main.ts [--host] [--port] [--latency-ms N] [--behavior model=behavior …]`
 * Starts the deterministic OpenAI-compatible upstream and prints
 * `{"event":"listening","base_url":...}`. See tools/mock-openai-upstream/README.md.
 */
import { Command } from 'commander';
import { type MockBehavior, startMockOpenAI } from './mock-openai-server.ts';

const program = new Command('mock-openai-upstream')
  .option('--host <host>', 'listen address', '127.0.0.1')
  .option('--port <port>', 'listen port (0 = any free port)', '0')
  .option('--latency-ms <ms>', 'added before every answer', '0')
  .option('--behavior <model=behavior>', 'how one model answers (ok, empty, plain_text, malformed, hang, stream_cut, status:<code>); repeatable', (v: string, acc: string[]) => [...acc, v], [] as string[])
  .parse();
const o = program.opts<{ host: string; port: string; latencyMs: string; behavior: string[] }>();
const BEHAVIOR = /^(ok|empty|plain_text|malformed|hang|stream_cut|status:[1-5][0-9]{2})$/;
const behaviors: Record<string, MockBehavior> = {};
for (const b of o.behavior) {
  const [model, behavior] = [b.slice(0, b.indexOf('=')), b.slice(b.indexOf('=') + 1)];
  if (!model || !BEHAVIOR.test(behavior)) {
    process.stderr.write(`mock-openai-upstream: --behavior ${b}: expected <model>=<ok|empty|plain_text|malformed|hang|stream_cut|status:<code>>\n`);
    process.exit(2);
  }
  behaviors[model] = behavior as MockBehavior;
}
const port = Number(o.port);
const latencyMs = Number(o.latencyMs);
if (!Number.isInteger(port) || port < 0 || port > 65535 || !Number.isFinite(latencyMs) || latencyMs < 0) {
  process.stderr.write('mock-openai-upstream: --port must be 0..65535 and --latency-ms a non-negative number\n');
  process.exit(2);
}
const mock = await startMockOpenAI({ host: o.host, port, latencyMs, recordCalls: false, behaviors, models: ['mock-small', 'mock-large', 'mock-flaky', 'mock-embed'] });
process.stdout.write(`${JSON.stringify({ event: 'listening', base_url: mock.url })}\n`);
const stop = (): void => void mock.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

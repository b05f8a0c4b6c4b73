/**
 * `node tools/attr-mock-provider/main.ts [--host] [--port] [--corpus <jsonl>] [--answer-file <txt>] [--api-key-env NAME]`
 * Starts the mock provider and prints `{"event":"listening","base_url":...}`.
 * See tools/attr-mock-provider/README.md.
 */
import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { startMockProvider } from './mock-provider.ts';

const program = new Command('attr-mock-provider')
  .option('--host <host>', 'listen address', '127.0.0.1')
  .option('--port <port>', 'listen port (0 = any free port)', '0')
  .option('--corpus <path>', 'corpus JSONL to answer from')
  .option('--answer-file <path>', 'fixed answer text')
  .option('--api-key-env <name>', 'require the key held in this environment variable')
  .parse();
const o = program.opts<{ host: string; port: string; corpus?: string; answerFile?: string; apiKeyEnv?: string }>();
const requiredApiKey = o.apiKeyEnv ? process.env[o.apiKeyEnv] : undefined;
if (o.apiKeyEnv && !requiredApiKey) {
  process.stderr.write(`attr-mock-provider: ${o.apiKeyEnv} is not set\n`);
  process.exit(2);
}
const provider = await startMockProvider({
  host: o.host,
  port: Number(o.port),
  ...(o.corpus ? { corpusPath: o.corpus } : {}),
  ...(o.answerFile ? { answerText: await readFile(o.answerFile, 'utf8') } : {}),
  ...(requiredApiKey ? { requiredApiKey } : {}),
});
process.stdout.write(`${JSON.stringify({ event: 'listening', base_url: provider.baseUrl })}\n`);
const stop = (): void => void provider.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

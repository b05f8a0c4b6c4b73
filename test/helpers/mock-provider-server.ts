/**
 * A test server whose one AI provider is the mock OpenAI upstream
 * (`mock-small`, size class small), for suites that need AI requests answered
 * but nothing particular from the upstream. Closing the server closes the
 * mock too.
 */
import { startMockOpenAI } from '../fixtures/mock-openai/mock-openai-server.ts';
import type { EngineName } from './engines.ts';
import { type TestServer, startTestServer } from './server.ts';

export async function startWithMockProvider(engine: EngineName): Promise<TestServer> {
  const mock = await startMockOpenAI();
  const providers = [{ name: 'mock', base_url: mock.url, models: [{ id: 'mock-small', size_class: 'small' }] }];
  let server: TestServer;
  try {
    server = await startTestServer({ engine, env: { SVC_PROVIDERS_JSON: JSON.stringify(providers) } });
  } catch (err) {
    await mock.close();
    throw err;
  }
  return {
    ...server,
    close: async () => {
      await server.close();
      await mock.close();
    },
  };
}

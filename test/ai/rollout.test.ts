/**
 * The AI gateway under the rollout decision, through the real HTTP server
 * and the mock upstream, on SQLite and PostgreSQL: the admin switches
 * `force_exact_contract`, `bypass_optimisation` and `disable_reducer`,
 * canary rules at 0 % and 100 %, and a tripped SLO guardrail each change
 * what the gateway does, the persisted plan says why, and switching back
 * restores the optimised path.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import type { Plan } from '../../src/svc/plans/plan.ts';
import { engines } from '../helpers/engines.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { type MockOpenAI, startMockOpenAI } from '../fixtures/mock-openai/mock-openai-server.ts';

function providersJson(url: string): string {
  return JSON.stringify([
    {
      name: 'mock',
      base_url: url,
      models: [
        { id: 'mock-small', size_class: 'small' },
        { id: 'mock-large', size_class: 'large' },
        { id: 'mock-embed', size_class: 'small', capabilities: ['embeddings'] },
      ],
      timeouts: { request_ms: 3000 },
    },
  ]);
}

/** Rules that only select requests in their own namespaces, so the other tests run under the permissive default. */
const ROLLOUT = {
  default: { mode: 'enforce', reducers: 'all' },
  canaries: [
    { name: 'pilot-everyone', match: { namespaces: ['pilot'], work_unit_kinds: ['prompt_request'], contracts: ['semantic'], percentage: 100 }, mode: 'observe', reducers: 'exact' },
    { name: 'dormant-nobody', match: { namespaces: ['dormant'], percentage: 0 }, mode: 'observe', reducers: 'exact' },
  ],
};

/** Trips on any failure in the window and recovers as soon as the window is healthy again (the test drives it). */
const GUARDRAIL = { enabled: true, window_seconds: 60, latency_p95_ms: 60_000, max_failure_rate: 0.5, min_samples: 1, recovery_seconds: 0, check_interval_ms: 0 };

const DOC = 'Retrieved document: the refund window is thirty days from delivery for all physical goods.';

/** A prompt context compilation shortens: the retrieved paragraph appears twice. */
function ragMessages(question: string): Array<{ role: string; content: string }> {
  return [
    { role: 'system', content: `Context:\n\n${DOC}\n\n${DOC}` },
    { role: 'user', content: question },
  ];
}

interface Answer {
  status: number;
  /** X-SVC-Semantic-Operating-Point */
  operatingPoint: string | null;
  workUnit: string;
  contract: string | null;
  mode: string | null;
  cache: string | null;
  route: string | null;
}

for (const engine of engines()) {
  describe(`AI gateway under the rollout decision (${engine.name})`, { skip: engine.skip }, () => {
    let mock: MockOpenAI;
    let svc: TestServer;

    const flip = async (body: Record<string, unknown>) => {
      const r = await svc.call('POST', '/v1/admin/switches', { body });
      assert.equal(r.status, 200, await r.clone().text());
    };
    const post = async (path: string, body: unknown): Promise<Answer> => {
      const r = await svc.call('POST', path, { key: KEYS.acmeWriter, body });
      assert.equal(r.status, 200, await r.clone().text());
      await r.json();
      const h = (name: string) => r.headers.get(name);
      return { status: r.status, workUnit: h('x-svc-work-unit-id')!, contract: h('x-svc-contract'), mode: h('x-svc-mode'), cache: h('x-svc-cache'), route: h('x-svc-route'), operatingPoint: h('x-svc-semantic-operating-point') };
    };
    const chat = (body: Record<string, unknown>) => post('/v1/chat/completions', body);
    const planOf = async (workUnit: string): Promise<Plan> => {
      const r = await svc.call('GET', `/v1/plans?work_unit_id=${workUnit}`);
      assert.equal(r.status, 200);
      const { plans } = (await r.json()) as { plans: Plan[] };
      assert.equal(plans.length, 1);
      return plans[0]!;
    };
    const deniedReasons = (plan: Plan, type: string) => plan.denied_actions.filter((d) => d.type === type).flatMap((d) => d.reasons);
    /** How many copies of the retrieved paragraph the provider received last (2: unchanged, 1: compiled). */
    const docCopiesSent = () => {
      const messages = mock.calls.at(-1)!.body.messages as Array<{ content: string }>;
      return messages[0]!.content.split(DOC).length - 1;
    };

    before(async () => {
      mock = await startMockOpenAI();
      // Copies: the loaded config is frozen in place, and each engine's server loads its own.
      svc = await startTestServer({ engine: engine.name, env: { SVC_PROVIDERS_JSON: providersJson(mock.url) }, overrides: { rollout: structuredClone(ROLLOUT), guardrail: structuredClone(GUARDRAIL) } });
    });
    afterEach(async () => {
      await flip({ switch: 'force_exact_contract', enabled: false });
      await flip({ switch: 'bypass_optimisation', enabled: false });
      for (const name of ['semantic_cache_lookup', 'exact_cache']) await flip({ switch: 'disable_reducer', name, disabled: false });
    });
    after(async () => {
      await svc?.close();
      await mock?.close();
    });

    test('force_exact_contract runs a semantic request under exact_bytes: the prompt passes unchanged, and plan, manifest and X-SVC-Contract say so', async () => {
      const body = { model: 'mock-small', messages: ragMessages('How long is the refund window? (forced)'), svc: { contract: 'semantic', allow_semantic_cache: true } };
      await flip({ switch: 'force_exact_contract', enabled: true });
      const forced = await chat(body);
      assert.equal(forced.contract, 'exact_bytes');
      assert.deepEqual(mock.calls.at(-1)!.body.messages, body.messages, 'no context compilation');
      const plan = await planOf(forced.workUnit);
      assert.equal(plan.contract, 'exact_bytes');
      assert.ok(plan.rollout?.reasons.includes('switch force_exact_contract is on'));
      for (const reducer of ['context_compile', 'semantic_cache_lookup']) assert.match(deniedReasons(plan, reducer).join(), /^rollout: .*force_exact_contract/, reducer);
      assert.equal(plan.actions.some((a) => a.type === 'context_compile' || a.type === 'semantic_cache_lookup'), false);
      assert.equal((await svc.app.store.aiManifests.byWorkUnit(forced.workUnit))?.contract, 'exact_bytes');

      await flip({ switch: 'force_exact_contract', enabled: false });
      const restored = await chat(body);
      assert.equal(restored.contract, 'semantic');
      assert.equal(docCopiesSent(), 1, 'context compiled again');
      const restoredPlan = await planOf(restored.workUnit);
      assert.deepEqual(restoredPlan.denied_actions, []);
      assert.ok(restoredPlan.actions.some((a) => a.type === 'context_compile'));
    });

    test('bypass_optimisation passes a chat through in observe mode: no cache hit served, no compilation, auto not classified; the plan lists what was skipped', async () => {
      const auto = { model: 'auto', messages: [{ role: 'user', content: 'Classify the sentiment of this review: bypass me' }] };
      assert.equal((await chat(auto)).route, 'mock/mock-small', 'the router picks the small model');
      assert.equal((await chat(auto)).cache, 'exact_hit');
      const rag = { model: 'mock-small', messages: ragMessages('How long is the refund window? (bypassed)'), svc: { contract: 'semantic' } };

      await flip({ switch: 'bypass_optimisation', enabled: true });
      const calls = mock.calls.length;
      const passed = await chat(auto);
      assert.equal(mock.calls.length, calls + 1, 'the provider answered');
      assert.deepEqual([passed.cache, passed.mode, passed.route], ['bypass', 'observe', 'mock/mock-large']);
      const plan = await planOf(passed.workUnit);
      assert.deepEqual([plan.mode, plan.rollout?.reducers], ['observe', 'none']);
      assert.match(deniedReasons(plan, 'exact_cache_lookup').join(), /^rollout: .*bypass_optimisation/);
      assert.deepEqual((await svc.app.store.aiManifests.byWorkUnit(passed.workUnit))?.routing.switched_by, ['rollout_pass_through']);

      const uncompiled = await chat(rag);
      assert.equal(docCopiesSent(), 2, 'the prompt passes unchanged');
      assert.match(deniedReasons(await planOf(uncompiled.workUnit), 'context_compile').join(), /bypass_optimisation/);

      await flip({ switch: 'bypass_optimisation', enabled: false });
      const back = await chat(auto);
      assert.deepEqual([back.cache, back.mode, back.route], ['exact_hit', 'enforce', 'mock/mock-small']);
      await chat({ ...rag, messages: ragMessages('How long is the refund window? (after bypass)') });
      assert.equal(docCopiesSent(), 1);
    });

    test('bypass_optimisation passes completions and embeddings through too', async () => {
      const completion = { model: 'mock-small', prompt: 'Say hello to the rollout' };
      const embedding = { model: 'mock-embed', input: ['rollout embeddings'] };
      await post('/v1/completions', completion);
      await post('/v1/embeddings', embedding);
      assert.deepEqual([(await post('/v1/completions', completion)).cache, (await post('/v1/embeddings', embedding)).cache], ['exact_hit', 'exact_hit']);

      await flip({ switch: 'bypass_optimisation', enabled: true });
      const calls = mock.calls.length;
      const [c, e] = [await post('/v1/completions', completion), await post('/v1/embeddings', embedding)];
      assert.deepEqual([c.cache, c.mode, e.cache, e.mode], ['bypass', 'observe', 'bypass', 'observe']);
      assert.equal(mock.calls.length, calls + 2);

      await flip({ switch: 'bypass_optimisation', enabled: false });
      assert.deepEqual([(await post('/v1/completions', completion)).cache, (await post('/v1/embeddings', embedding)).cache], ['exact_hit', 'exact_hit']);
    });

    test('a disabled semantic_cache_lookup reducer stops semantic hits until it is enabled again', async () => {
      const ext = { contract: 'semantic', allow_semantic_cache: true };
      const ask = (content: string) => chat({ model: 'mock-small', messages: [{ role: 'user', content }], svc: ext });
      await ask('How do I rotate the signing key of the console?');
      const hit = await ask('how do i rotate the signing key of the console');
      assert.equal(hit.cache, 'semantic_hit');
      assert.equal(hit.operatingPoint, 'default:0.925:lexical-align@6', 'a semantic hit names its operating point');

      await flip({ switch: 'disable_reducer', name: 'semantic_cache_lookup', disabled: true });
      const off = await ask('HOW DO I ROTATE THE SIGNING KEY OF THE CONSOLE?');
      assert.equal(off.cache, 'miss');
      const plan = await planOf(off.workUnit);
      assert.deepEqual(deniedReasons(plan, 'semantic_cache_lookup'), ["rollout: reducer 'semantic_cache_lookup' is switched off (disable_reducer)"]);
      assert.ok(plan.actions.some((a) => a.type === 'exact_cache_lookup'), 'the exact cache still runs');

      await flip({ switch: 'disable_reducer', name: 'semantic_cache_lookup', disabled: false });
      assert.equal((await ask('How do I rotate the signing key of the console!')).cache, 'semantic_hit');
    });

    test('disabling the exact cache by its reducer family name (exact_cache) stops exact hits until it is enabled again', async () => {
      const body = { model: 'mock-small', messages: [{ role: 'user', content: 'What does the exact cache keep?' }] };
      await chat(body);
      assert.equal((await chat(body)).cache, 'exact_hit');
      await flip({ switch: 'disable_reducer', name: 'exact_cache', disabled: true });
      const off = await chat(body);
      assert.equal(off.cache, 'bypass');
      assert.match(deniedReasons(await planOf(off.workUnit), 'exact_cache_lookup').join(), /switched off/);
      await flip({ switch: 'disable_reducer', name: 'exact_cache', disabled: false });
      assert.equal((await chat(body)).cache, 'exact_hit');
    });

    test('a canary rule at 100 % selects every matching request (observe, exact reducers); one at 0 % selects none', async () => {
      const inNamespace = (namespace: string, question: string) => ({ model: 'mock-small', messages: ragMessages(question), svc: { contract: 'semantic', namespace } });

      const selected = await chat(inNamespace('pilot', 'Refund window, pilot?'));
      assert.equal(selected.mode, 'observe');
      assert.equal(docCopiesSent(), 2, 'context compilation is outside the exact tier');
      const plan = await planOf(selected.workUnit);
      assert.deepEqual([plan.rollout?.canary, plan.rollout?.reducers], ['pilot-everyone', 'exact']);
      assert.match(deniedReasons(plan, 'context_compile').join(), /^rollout: canary 'pilot-everyone'/);
      // The exact cache stays in the tier; observe mode reports the would-be hit and still calls the provider.
      const calls = mock.calls.length;
      assert.equal((await chat(inNamespace('pilot', 'Refund window, pilot?'))).cache, 'observe_exact_hit');
      assert.equal(mock.calls.length, calls + 1);

      const notSelected = await chat(inNamespace('dormant', 'Refund window, dormant?'));
      assert.equal(notSelected.mode, 'enforce');
      assert.equal(docCopiesSent(), 1, 'the default tier compiles');
      assert.equal((await planOf(notSelected.workUnit)).rollout?.canary, null);

      // The pilot rule selects prompt requests only: an embedding in the same namespace runs under the default.
      const embedding = await post('/v1/embeddings', { model: 'mock-embed', input: ['pilot embedding'], svc: { namespace: 'pilot', contract: 'semantic' } });
      assert.equal(embedding.mode, 'enforce');
      assert.equal((await planOf(embedding.workUnit)).rollout?.canary, null);
    });

    test('a tripped SLO guardrail turns compilation and the semantic cache off while the exact cache keeps serving; recovery restores them', async () => {
      const guardrail = svc.app.rollout.guardrail;
      const ext = { contract: 'semantic', allow_semantic_cache: true };
      const body = (question: string) => ({ model: 'mock-small', messages: ragMessages(question), svc: ext });
      // Failures until the window (which also holds the earlier tests' successes) is over the failure SLO.
      for (let i = 0; i < 1000 && !guardrail.tripped; i++) guardrail.record(5, false);
      assert.equal(guardrail.tripped, true);
      try {
        const tripped = await chat(body('Refund window during the incident?'));
        assert.equal(docCopiesSent(), 2, 'no context compilation');
        const plan = await planOf(tripped.workUnit);
        assert.equal(plan.rollout?.guardrail_tripped, true);
        for (const reducer of ['context_compile', 'semantic_cache_lookup']) assert.match(deniedReasons(plan, reducer).join(), /SLO guardrail tripped/, reducer);
        assert.equal((await chat(body('Refund window during the incident?'))).cache, 'exact_hit', 'the exact path stays');
      } finally {
        // Healthy samples until the failure rate is under half the SLO; recovery_seconds is 0.
        for (let i = 0; i < 4000 && guardrail.tripped; i++) guardrail.record(5, true);
      }
      assert.equal(guardrail.tripped, false);
      const calls = mock.calls.length;
      const recovered = await chat(body('Which warehouse in Norway handles returned parcels?'));
      assert.equal(mock.calls.length, calls + 1);
      assert.equal(docCopiesSent(), 1, 'compilation is back');
      const plan = await planOf(recovered.workUnit);
      assert.deepEqual([plan.rollout?.guardrail_tripped, plan.denied_actions], [false, []]);
      assert.ok(plan.actions.some((a) => a.type === 'semantic_cache_lookup'));
    });
  });
}

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SvcError } from '../../errors.ts';
import { ModelCatalog } from '../providers/model-catalog.ts';
import { parseProvidersSection } from '../providers/provider-config.ts';
import { selectFallback, selectRoute } from './route-selector.ts';

const catalog = new ModelCatalog(
  parseProvidersSection(
    [
      {
        name: 'base',
        base_url: 'http://127.0.0.1:1/v1',
        models: [
          { id: 'base-small', size_class: 'small' },
          { id: 'base-large', size_class: 'large' },
          { id: 'base-fallback', size_class: 'small' },
        ],
        fallback_model: 'base-fallback',
      },
      {
        name: 'other',
        base_url: 'http://127.0.0.1:2/v1',
        models: [
          { id: 'other-small', size_class: 'small' },
          { id: 'other-large', size_class: 'large' },
          { id: 'other-embed', size_class: 'small', capabilities: ['embeddings'] },
        ],
        fallback_model: 'other-small',
      },
    ],
    'test',
  ),
);
const CLASSIFY = 'Classify the sentiment of this review: great product';
const off = { modelRouterDisabled: false, baselineProviderOnly: false };

test('auto classifies by default; with the model router disabled it takes the large model, unclassified', () => {
  const routed = selectRoute(catalog, 'auto', 'chat', CLASSIFY, false, off);
  assert.deepEqual([routed.label, routed.classification?.task_class, routed.switched_by], ['base/base-small', 'classification', undefined]);
  const disabled = selectRoute(catalog, 'auto', 'chat', CLASSIFY, false, { ...off, modelRouterDisabled: true });
  assert.deepEqual([disabled.label, disabled.classification, disabled.switched_by, disabled.baseline_size_class], ['base/base-large', undefined, ['model_router_disabled'], 'large']);
});

test('a named model is unaffected by the model router switch', () => {
  assert.equal(selectRoute(catalog, 'other-small', 'chat', CLASSIFY, false, { ...off, modelRouterDisabled: true }).label, 'other/other-small');
});

test('route_to_baseline_provider moves another provider\'s model to the baseline provider\'s model of the same size class', () => {
  const on = { ...off, baselineProviderOnly: true };
  assert.equal(selectRoute(catalog, 'other-small', 'chat', CLASSIFY, false, on).label, 'base/base-small');
  assert.equal(selectRoute(catalog, 'other-large', 'chat', CLASSIFY, false, on).label, 'base/base-large');
  const kept = selectRoute(catalog, 'base-large', 'chat', CLASSIFY, false, on);
  assert.deepEqual([kept.label, kept.switched_by], ['base/base-large', ['route_to_baseline_provider']]);
  assert.equal(selectRoute(catalog, 'other-small', 'chat', CLASSIFY, false, off).label, 'other/other-small');
});

test('both switches together: auto goes to the baseline provider\'s large model', () => {
  const both = selectRoute(catalog, 'auto', 'chat', CLASSIFY, false, { modelRouterDisabled: true, baselineProviderOnly: true });
  assert.deepEqual([both.label, both.switched_by], ['base/base-large', ['model_router_disabled', 'route_to_baseline_provider']]);
});

test('when the baseline provider serves nothing for the API, the request fails rather than leaving it', () => {
  assert.throws(
    () => selectRoute(catalog, 'other-embed', 'embeddings', 'text', false, { ...off, baselineProviderOnly: true }),
    (e: SvcError) => e.code === 'model_route_failed' && /baseline provider 'base'/.test(e.message),
  );
});

test('under route_to_baseline_provider the fallback stays on the baseline provider', () => {
  const on = { ...off, baselineProviderOnly: true };
  const primary = selectRoute(catalog, 'other-small', 'chat', CLASSIFY, false, on);
  assert.equal(selectFallback(catalog, primary, undefined, 'chat', on)?.label, 'base/base-fallback');
  assert.equal(selectFallback(catalog, primary, 'other-large', 'chat', on)?.label, 'base/base-fallback');
  assert.equal(selectFallback(catalog, primary, 'base-large', 'chat', on)?.label, 'base/base-large');
  const unswitched = selectRoute(catalog, 'other-small', 'chat', CLASSIFY, false, off);
  assert.equal(selectFallback(catalog, unswitched, undefined, 'chat', off)?.label, 'other/other-small');
});

test('under the rollout pass-through auto takes the large model, unclassified, and says the rollout changed it', () => {
  const passed = selectRoute(catalog, 'auto', 'chat', CLASSIFY, false, { ...off, rolloutPassThrough: true });
  assert.deepEqual([passed.label, passed.classification, passed.switched_by], ['base/base-large', undefined, ['rollout_pass_through']]);
  const named = selectRoute(catalog, 'other-small', 'chat', CLASSIFY, false, { ...off, rolloutPassThrough: true });
  assert.deepEqual([named.label, named.switched_by], ['other/other-small', undefined], 'a named model is what the client asked for');
});

test("a provider's chat fallback_model does not apply to embeddings; a request-named one that cannot serve them is refused", () => {
  const off = { modelRouterDisabled: false, baselineProviderOnly: false };
  const primary = selectRoute(catalog, 'other-embed', 'embeddings', 'text', false, off);
  assert.equal(selectFallback(catalog, primary, undefined, 'embeddings', off), undefined);
  assert.throws(() => selectFallback(catalog, primary, 'other-small', 'embeddings', off), (e: SvcError) => e.code === 'model_route_failed' && /fallback model 'other-small'/.test(e.message));
});

/** The suites a deployment can run (spec: Benchmark suites). */
import { loadLocalV1 } from './suites/load-local.ts';
import { objectExactV1 } from './suites/object-exact.ts';
import { promptCacheV1 } from './suites/prompt-cache.ts';
import type { ProductSuite, SuiteId } from './suite.ts';

export const PRODUCT_SUITES: Readonly<Record<SuiteId, ProductSuite>> = {
  'object-exact-v1': objectExactV1,
  'prompt-cache-v1': promptCacheV1,
  'load-local-v1': loadLocalV1,
};

// prompt-cache-v1: the product suite (src/svc/benchmarks/suites/prompt-cache.ts), run offline.
import { offlineSuite } from '../../src/svc/benchmarks/offline-suite.ts';
import { promptCacheV1 } from '../../src/svc/benchmarks/suites/prompt-cache.ts';

export default offlineSuite(promptCacheV1);

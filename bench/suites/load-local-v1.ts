// load-local-v1: the product suite (src/svc/benchmarks/suites/load-local.ts), run offline.
import { offlineSuite } from '../../src/svc/benchmarks/offline-suite.ts';
import { loadLocalV1 } from '../../src/svc/benchmarks/suites/load-local.ts';

export default offlineSuite(loadLocalV1);

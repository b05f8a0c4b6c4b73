// The report shape and statistics live with the product's benchmarks
// (src/svc/benchmarks); the offline suites here use the same ones.
export * from '../src/svc/benchmarks/bench-report.ts';

// The corpus generators live with the product's benchmarks; one implementation.
export * from '../../src/svc/benchmarks/corpus/deterministic-bytes.ts';

/**
 * What each suite a deployment can run reports and within which default
 * budget (spec: Benchmark suites). Kept apart from the implementations so the
 * service can list suites without loading them (they import the app).
 */
import type { SuiteId, SuiteInfo } from './suite.ts';

const MiB = 1024 * 1024;

export const SUITE_INFO: Readonly<Record<SuiteId, SuiteInfo>> = {
  'object-exact-v1': {
    id: 'object-exact-v1',
    description: 'Random, repeated, log-like, shifted, JSON, compressed and encrypted-like files; a multipart upload; range reads: write and read throughput, stored bytes, metadata overhead, rehydration correctness.',
    figures: ['write MiB/s', 'read MiB/s', 'stored bytes', 'metadata overhead', 'range read p95', 'rehydration correctness'],
    default_budget: { max_seconds: 120, max_bytes: 64 * MiB },
  },
  'prompt-cache-v1': {
    id: 'prompt-cache-v1',
    description: 'Exact and paraphrased prompts, duplicated retrieval context, tool-solvable, classification and hard-reasoning questions, stale sources, cross-tenant attempts: hit rate, false acceptance rate, large-model calls and tokens avoided, latency, verifier failure rate.',
    figures: ['cache hit rate', 'false acceptance rate', 'large-model calls avoided', 'tokens avoided', 'latency p50/p95', 'verifier failure rate'],
    default_budget: { max_seconds: 60, max_bytes: 1024 * 1024 },
  },
  'load-local-v1': {
    id: 'load-local-v1',
    description: 'Bounded local load run: object ingest throughput, rehydration p95, AI gateway p95 (local mock upstream), exact cache index write and lookup rate, manifest store write rate — each against an anchor measured in the same run.',
    figures: ['object ingest MiB/s', 'rehydration p95 ms', 'AI gateway p95 ms', 'exact cache writes/s', 'exact cache lookups/s', 'manifest store writes/s'],
    default_budget: { max_seconds: 60, max_bytes: 32 * MiB },
  },
};

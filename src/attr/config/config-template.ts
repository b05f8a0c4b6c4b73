/**
 * Config templates for `attr-service-config create`. Only `default` exists: a
 * loopback listener, per-batch fsync, the documented limits, no provider routes
 * (provider mode is opt-in: add an entry to `providers[]`).
 */
import path from 'node:path';
import { DEFAULT_LIMITS, DEFAULT_RATE_LIMIT, SERVICE_CONFIG_SCHEMA_ID, type ServiceConfigDocument } from './service-config-schema.ts';

export const CONFIG_TEMPLATES = ['default'] as const;
export type ConfigTemplate = (typeof CONFIG_TEMPLATES)[number];

export interface TemplateInputs {
  corpusPath: string;
  auditLogPath: string;
  artifactDir: string;
  /** Where the config will be written; paths are stored relative to it when they sit below it. */
  outputPath: string;
}

/** Builds a config document from a template. Paths below the output's directory are stored relative to it, others absolute. */
export function configFromTemplate(template: ConfigTemplate, inputs: TemplateInputs): ServiceConfigDocument {
  const base = path.dirname(path.resolve(inputs.outputPath));
  const rel = (p: string): string => {
    const absolute = path.resolve(p);
    const r = path.relative(base, absolute);
    // Relative only below the config's directory, so moving the pair keeps working; absolute otherwise.
    if (r === '') return '.';
    return r.startsWith('..') || path.isAbsolute(r) ? absolute : r;
  };
  switch (template) {
    case 'default':
      return {
        schema: SERVICE_CONFIG_SCHEMA_ID,
        corpus_path: rel(inputs.corpusPath),
        audit_log_path: rel(inputs.auditLogPath),
        artifact_dir: rel(inputs.artifactDir),
        service: { host: '127.0.0.1', port: 8787, operator: 'local-operator' },
        audit: { fsync: 'per_batch' },
        limits: { ...DEFAULT_LIMITS },
        rate_limit: { ...DEFAULT_RATE_LIMIT },
        providers: [],
      };
  }
}

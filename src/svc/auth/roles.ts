/**
 * Roles and what each may do. A principal holds roles from server
 * configuration only; nothing in a token's text or a request body grants a
 * role. `admin` holds every permission. docs/auth.md is the user-facing copy
 * of this table.
 */

export const PERMISSIONS = [
  'work_units:write', // create, plan, execute work units; object puts; AI requests
  'work_units:read', // read work units, plans, manifests, rehydrate, object get/list
  'objects:delete', // ask for object deletion (policy still decides)
  'ledger:read', // ledger query/stream, ledger verify
  'logs:read', // operational log query
  'metrics:read', // /metrics, dashboard, readiness reports
  'cache:write', // store cache entries
  'cache:read', // cache lookups
  'policy:read', // validate, evaluate, list bundles
  'policy:publish', // publish a bundle, reload the active bundle
  'approvals:create', // issue and revoke approvals
  'admin:switches', // rollback switches, guardrail settings
  'manifests:export', // export/import manifests and chunks
  'scheduler:write',
  'benchmarks:run', // start benchmark runs against this deployment (deployment-wide keys only)
  'restore_tests:run', // run rehydration restore tests (a tenant-bound key: its own tenant)
  'storage:gc', // run garbage collection of chunks and abandoned uploads (deployment-wide keys only; admin)
  'plugins:manage', // install and enable signed plugins (deployment-wide keys only); disable is also open to admin:switches
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export const ROLES = {
  admin: [...PERMISSIONS],
  operator: ['work_units:read', 'ledger:read', 'logs:read', 'metrics:read', 'policy:read', 'admin:switches', 'manifests:export', 'cache:read', 'benchmarks:run', 'restore_tests:run'],
  // Writers may ask to delete objects; the policy bundle decides (denied unless a policy allows it).
  writer: ['work_units:write', 'work_units:read', 'objects:delete', 'cache:write', 'cache:read', 'policy:read', 'scheduler:write'],
  reader: ['work_units:read', 'cache:read', 'policy:read'],
  auditor: ['work_units:read', 'ledger:read', 'logs:read', 'metrics:read', 'policy:read'],
  'policy-publisher': ['policy:read', 'policy:publish'],
  approver: ['policy:read', 'approvals:create'],
} as const satisfies Record<string, readonly Permission[]>;

export type Role = keyof typeof ROLES;

export function isRole(value: string): value is Role {
  return Object.hasOwn(ROLES, value);
}

export function permissionsOf(roles: readonly Role[]): Set<Permission> {
  const out = new Set<Permission>();
  for (const role of roles) for (const p of ROLES[role]) out.add(p);
  return out;
}

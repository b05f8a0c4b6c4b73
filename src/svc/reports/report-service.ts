/**
 * Reports as a service: resolves the caller's tenant and window, reads the
 * ledger head first and then the rows (so every counted event is at or
 * before the named head), and builds the dashboard. REST and the CLI call
 * `dashboard`; nothing here reads in-memory counters.
 */
import { requirePermission } from '../auth/principal.ts';
import type { TenantGuard } from '../auth/tenant-guard.ts';
import type { RequestContext } from '../context.ts';
import type { ReportRowsRepository } from '../store/repositories/report-rows.ts';
import { type DashboardSections, type ReportRows, buildDashboard } from './dashboard.ts';
import type { EstimateConstants } from './estimate-constants.ts';
import { type ReportWindow, resolveWindow } from './report-query.ts';
import { RECOMMENDATION_RULES, type Recommendation, buildRecommendations } from './recommendations.ts';

export interface DashboardReport {
  report: 'dashboard';
  generated_at: string;
  window: ReportWindow;
  tenant: string | null;
  /** The chain position the report was computed at; events after it are not counted. */
  ledger_head: { event_id: string; seq: number; hash: string } | null;
  reproduce: string;
  sections: DashboardSections;
}

export interface ReportServiceDeps {
  rows: ReportRowsRepository;
  tenants: TenantGuard;
  constants: EstimateConstants;
  defaultWindowDays: number;
  /** Configured AI models as `provider/model` (unused model variants). */
  models?: () => string[];
  /** Manifest ids of table versions that duplicate another table's dataset (the lakehouse adapter). */
  logicalDuplicates?: (tenant: string | undefined) => Promise<string[]>;
  now?: () => Date;
}

export interface RecommendationsReport {
  report: 'recommendations';
  generated_at: string;
  window: ReportWindow;
  tenant: string | null;
  ledger_head: DashboardReport['ledger_head'];
  rules: typeof RECOMMENDATION_RULES;
  recommendations: Recommendation[];
}

export class ReportService {
  readonly #d: ReportServiceDeps;
  constructor(deps: ReportServiceDeps) {
    this.#d = deps;
  }

  /** The rows of one report scope (also used by recommendations and alerts). */
  async rows(ctx: RequestContext, input: unknown): Promise<ReportRows> {
    requirePermission(ctx.principal, 'metrics:read');
    const { query, window } = resolveWindow(input, this.#d.defaultWindowDays, this.#d.now?.() ?? new Date());
    const tenant = await this.#d.tenants.filter(ctx, query.tenant, 'reports.tenant');
    const head = (await this.#d.rows.ledgerHead()) ?? null;
    const scope = { ...window, tenant };
    const [bytes, ai, events] = await Promise.all([
      this.#d.rows.byteManifests(scope),
      this.#d.rows.computeManifests(scope),
      head ? this.#d.rows.ledgerCounts(scope, head.seq) : Promise.resolve({}),
    ]);
    return { window, tenant: tenant ?? null, head, bytes, ai, events };
  }

  async #recommendations(rows: ReportRows): Promise<Recommendation[]> {
    const tenant = rows.tenant ?? undefined;
    const [manifests, lastReads, logicalDuplicates] = await Promise.all([
      this.#d.rows.activeByteManifests(tenant),
      rows.head ? this.#d.rows.lastReads(tenant, rows.head.seq) : Promise.resolve(new Map<string, string>()),
      this.#d.logicalDuplicates?.(tenant) ?? Promise.resolve([]),
    ]);
    return buildRecommendations({ now: new Date(rows.window.to), manifests, lastReads, ai: rows.ai, models: this.#d.models?.() ?? [], constants: this.#d.constants, logicalDuplicates });
  }

  /** `GET /v1/reports/recommendations`: the six data-quality findings with evidence. */
  async recommendations(ctx: RequestContext, input: unknown): Promise<RecommendationsReport> {
    const rows = await this.rows(ctx, input);
    return {
      report: 'recommendations',
      generated_at: new Date().toISOString(),
      window: rows.window,
      tenant: rows.tenant,
      ledger_head: rows.head ? { event_id: rows.head.event_id, seq: rows.head.seq, hash: rows.head.hash } : null,
      rules: RECOMMENDATION_RULES,
      recommendations: await this.#recommendations(rows),
    };
  }

  async dashboard(ctx: RequestContext, input: unknown): Promise<DashboardReport> {
    const rows = await this.rows(ctx, input);
    const sections = buildDashboard(rows, this.#d.constants);
    sections.data.recommendations = await this.#recommendations(rows);
    return {
      report: 'dashboard',
      generated_at: new Date().toISOString(),
      window: rows.window,
      tenant: rows.tenant,
      ledger_head: rows.head ? { event_id: rows.head.event_id, seq: rows.head.seq, hash: rows.head.hash } : null,
      reproduce:
        'Each figure names its source table and method. Rows: manifests and ai_manifests with window.from <= created_at < window.to, ledger_events with window.from <= ts < window.to and seq <= ledger_head.seq, all filtered by tenant when tenant is not null.',
      sections,
    };
  }
}

/**
 * svc.v1.PluginService — the gRPC form of `/v1/plugins` (route plugins.ts),
 * over the same domain calls (src/svc/plugins/plugin-service.ts).
 */
import { PluginIdParams } from '../../plugins/plugin-manifest.ts';
import { validate } from '../../validation.ts';
import type { PluginServiceHandlers } from '../generated/svc/v1/PluginService.ts';
import { jsonResult } from '../mapping/json-result.ts';
import { fromOptionalStruct } from '../mapping/struct.ts';
import { type GrpcRuntime, unary } from '../rpc-handlers.ts';

export function pluginService(rt: GrpcRuntime): PluginServiceHandlers {
  const plugins = rt.app.plugins;
  const idOf = (req: { id?: string }) => validate(PluginIdParams, { id: req.id ?? '' }, 'invalid_request', 'path parameters').id;
  return {
    ListPlugins: unary(rt, 'PluginService/ListPlugins', async (ctx) => ({ result: jsonResult(await plugins.list(ctx)) })),
    GetPlugin: unary(rt, 'PluginService/GetPlugin', async (ctx, req) => ({ result: jsonResult(await plugins.get(ctx, idOf(req))) })),
    InstallPlugin: unary(rt, 'PluginService/InstallPlugin', async (ctx, req) => {
      const r = await plugins.install(ctx, fromOptionalStruct(req.bundle) ?? {});
      return { result: jsonResult(r.plugin), created: r.created };
    }),
    EnablePlugin: unary(rt, 'PluginService/EnablePlugin', async (ctx, req) => ({ result: jsonResult(await plugins.enable(ctx, idOf(req))) })),
    DisablePlugin: unary(rt, 'PluginService/DisablePlugin', async (ctx, req) => ({ result: jsonResult(await plugins.disable(ctx, idOf(req))) })),
  };
}

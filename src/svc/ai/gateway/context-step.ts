/**
 * Context compilation of a chat request (semantic contract, permitted by
 * policy and rollout). Observe mode measures without applying: the
 * messages sent upstream change only in enforce mode.
 */
import { compileContext } from '../context/context-compiler.ts';
import type { ChatCompletionRequest } from '../schemas/ai-requests.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import type { RequestRun } from './request-run.ts';

type Messages = ChatCompletionRequest['messages'];

/** The messages to send upstream after compilation; the figures go on `run`. */
export async function compileRequestContext(d: GatewayDeps, messages: Messages, maxContextTokens: number | undefined, run: RequestRun): Promise<Messages> {
  const compiled = await d.spans.run('svc.ai.context_compile', { work_unit_id: run.work_unit_id, contract: run.contract, mode: run.mode }, async () =>
    compileContext(messages, { contract: 'semantic', maxContextTokens }),
  );
  run.contextBefore = compiled.tokens_before;
  run.contextAfter = compiled.tokens_after;
  if (run.mode !== 'enforce' || !compiled.changed) return messages;
  run.tokensRemoved = Math.max(0, (compiled.tokens_before ?? 0) - (compiled.tokens_after ?? 0));
  d.telemetry.count('svc_ai_context_tokens_removed_total', run.tokensRemoved);
  return compiled.messages;
}

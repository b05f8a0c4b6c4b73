/**
 * One check of a deployment target: pass or fail with a reason. `required`
 * checks decide readiness; `advisory` ones are reported but do not fail it.
 * A check that throws fails with the error's message: unknown is never ok
 * (readiness fails closed).
 */

export interface PlatformCheck {
  name: string;
  ok: boolean;
  required: boolean;
  /** Why it failed, or what was found when it passed. */
  detail: string;
}

export interface TargetValidation {
  target: string;
  ok: boolean;
  checks: PlatformCheck[];
}

/** Runs `fn`; its string is the detail of a pass; a throw is a failure with the message. */
export async function runCheck(name: string, fn: () => Promise<string>, required = true, timeoutMs = 10_000): Promise<PlatformCheck> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    const detail = await Promise.race([fn(), timeout]);
    return { name, ok: true, required, detail };
  } catch (err) {
    return { name, ok: false, required, detail: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

/** A check that cannot run because an earlier one failed: failed, naming the cause. */
export function skippedCheck(name: string, because: string, required = true): PlatformCheck {
  return { name, ok: false, required, detail: `not run: ${because}` };
}

export function validation(target: string, checks: PlatformCheck[]): TargetValidation {
  return { target, ok: checks.length > 0 && checks.every((c) => c.ok || !c.required), checks };
}

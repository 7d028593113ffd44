import path from "node:path";
import { bounded } from "../../hooks/bounded.ts";
import { HOOK_EVENTS, type HookEvent, hookOutput, isHookEvent, parseHookInput } from "../../hooks/events.ts";
import { sessionStartContext } from "../../hooks/session-start.ts";
import { planStopHook, spawnDetachedMemdir } from "../../hooks/stop.ts";
import { userPromptContext } from "../../hooks/user-prompt-submit.ts";
import { warmUpDecision } from "../../hooks/warm-up.ts";
import { selectorFromConfig } from "../../recall/select-from-config.ts";
import {
  type CommandContext,
  type ModelOptions,
  type RegisterCommand,
  usageError,
  withModelOptions,
} from "../common.ts";
import { configFromOptions, locationFromOptions } from "../location.ts";

interface HookOptions extends ModelOptions {
  root?: string;
  cwd?: string;
  dir?: string;
  timeoutMs: string;
}

/** How long a hook may take by default (issue 9): an agent waits for it before its model call. */
export const DEFAULT_HOOK_TIMEOUT_MS = 3000;

/**
 * `memdir hook <session-start|user-prompt-submit|stop>`: for agents that run hook commands. Reads
 * the hook's JSON from stdin (`{session_id, transcript_path, cwd, hook_event_name, prompt?}`),
 * prints `{"hookSpecificOutput": {"hookEventName", "additionalContext"}}` or `{}`, and always exits
 * 0: malformed input, a failure or the time bound (`--timeout-ms`, default 3000) give `{}` and a
 * line on stderr. The project is `--cwd`, else the input's `cwd`, else the current directory.
 */
export const registerHookCommand: RegisterCommand = (program, context) => {
  withModelOptions(program.command("hook"))
    .description("answer an agent hook: session-start, user-prompt-submit or stop (hook JSON on stdin)")
    .argument("<event>", HOOK_EVENTS.join(" | "))
    .option("--root <dir>", "memory root (default: $MEMDIR_ROOT, then ~/.claude)")
    .option("--cwd <dir>", "project directory (default: the hook input's cwd, then the current directory)")
    .option("--dir <memory-dir>", "use this memory directory directly, bypassing project resolution")
    .option(
      "--timeout-ms <ms>",
      "answer {} if the hook takes longer than this",
      String(DEFAULT_HOOK_TIMEOUT_MS),
    )
    .action(async (event: string, options: HookOptions) => {
      if (!isHookEvent(event))
        throw usageError(`hook: unknown event "${event}" (one of ${HOOK_EVENTS.join(", ")})`);
      const timeoutMs = Number(options.timeoutMs);
      if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
        throw usageError(
          `hook: --timeout-ms must be a positive number of milliseconds, got "${options.timeoutMs}"`,
        );
      const log = (reason: string) => context.io.stderr(`memdir: hook ${event}: ${reason}\n`);
      const output = await bounded(
        timeoutMs,
        {},
        async (signal) => hookOutput(event, await answerHook(event, options, context, signal, log)),
        log,
      );
      context.io.stdout(`${JSON.stringify(output)}\n`);
    });
};

async function answerHook(
  event: HookEvent,
  options: HookOptions,
  context: CommandContext,
  signal: AbortSignal,
  log: (reason: string) => void,
): Promise<string | null> {
  const stdin = context.io.stdin ? await context.io.stdin() : "";
  const input = parseHookInput(stdin);
  if (input === null) {
    log("stdin is not the hook's JSON object; nothing to add");
    return null;
  }
  const env = context.env;
  const cwd = path.resolve(options.cwd ?? input.cwd ?? process.cwd());
  // Project settings (auto memory off, the model) are read from the project root, as `extract`
  // and `dream` read them: an agent working in a sub-folder must not escape them.
  const location = await locationFromOptions({ ...options, cwd }, context);
  const config = configFromOptions({ ...options, cwd }, context, location);
  if (event === "stop") {
    const plan = planStopHook({
      transcriptPath: input.transcript_path,
      cwd,
      config,
      root: options.root,
      dir: options.dir,
    });
    if ("skip" in plan) log(`no extraction: ${plan.skip}`);
    else log(`extraction started in the background (pid ${spawnDetachedMemdir(plan.run, env)})`);
    return null;
  }
  if (event === "session-start") {
    // Side by side: the warm-up check only lists folders, and never fails the hook.
    const [context] = await Promise.all([
      sessionStartContext({ config, location }),
      config.autoMemory ? startWarmUpIfNeeded(location.memoryDir, env, log) : null,
    ]);
    return context;
  }
  if (input.prompt === undefined || input.prompt.trim() === "") return null;
  const { selector } = selectorFromConfig(undefined, config);
  return userPromptContext({ prompt: input.prompt, config, location, selector, signal });
}

/**
 * Starts `memdir warm-up` in the background when the memory dir is big and its caches are
 * missing or stale, so the session's first `user-prompt-submit` finds them ready instead of
 * running out of its time bound while building them. Never delays or fails the hook.
 */
async function startWarmUpIfNeeded(
  memoryDir: string,
  env: NodeJS.ProcessEnv,
  log: (reason: string) => void,
): Promise<void> {
  try {
    const decision = await warmUpDecision(memoryDir, env);
    if (!decision.warm) return;
    const pid = spawnDetachedMemdir(["warm-up", "--dir", memoryDir], env);
    log(`cache warm-up started in the background (pid ${pid}): ${decision.reason}`);
  } catch (error) {
    log(`no cache warm-up: ${error instanceof Error ? error.message : String(error)}`);
  }
}

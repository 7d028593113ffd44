import path from "node:path";
import type { ResolvedConfig } from "../../config.ts";
import { bounded } from "../../hooks/bounded.ts";
import { fitHookContext } from "../../hooks/context-limit.ts";
import {
  HOOK_ACTIONS,
  HOOK_EVENTS,
  type HookDialect,
  type HookEvent,
  type HookInput,
  type HookOutput,
  hookDialect,
  hookOutput,
  normalizeHookEvent,
  parseHookInput,
} from "../../hooks/events.ts";
import { type HookModeDecision, hookConfig, hookMode, hostIsClaudeCode } from "../../hooks/mode.ts";
import { sessionStartContext } from "../../hooks/session-start.ts";
import { planStopHook, spawnDetachedMemdir } from "../../hooks/stop.ts";
import { userPromptContext } from "../../hooks/user-prompt-submit.ts";
import { warmUpDecision } from "../../hooks/warm-up.ts";
import type { MemoryLocation } from "../../memdir/paths.ts";
import { selectorFromConfig } from "../../recall/select-from-config.ts";
import { startAutoSync } from "../auto-sync.ts";
import { type CommandContext, type ModelOptions, type RegisterCommand, withModelOptions } from "../common.ts";
import { configFromOptions, locationFromOptions } from "../location.ts";

interface HookOptions extends ModelOptions {
  root?: string;
  cwd?: string;
  dir?: string;
  timeoutMs?: string;
  explain?: boolean;
}

/** How long a hook may take by default (issue 9): an agent waits for it before its model call. */
export const DEFAULT_HOOK_TIMEOUT_MS = 3000;
/**
 * The bound when no `--timeout-ms` is given: raises it for every hook at once on a slow machine
 * (a host passes its settings' `env` to its hooks) instead of editing each entry.
 */
export const HOOK_TIMEOUT_ENV = "MEMDIR_HOOK_TIMEOUT_MS";

/**
 * `memdir hook <event>`: for agents that run hook commands (Claude Code, Codex, Gemini CLI). Reads
 * the hook's JSON from stdin (`{session_id, transcript_path, cwd, hook_event_name, prompt?, …}`),
 * prints `{"hookSpecificOutput": {"hookEventName", "additionalContext"}}` (Cursor, told by its payload:
 * `{"additional_context"}` at sessionStart) or `{}`, and always exits
 * 0 — an unknown event, a bad flag, malformed input, a failure or the time bound (`--timeout-ms`,
 * default 3000) give `{}` and one line on stderr (exit code 2 would block the host's prompt). The
 * project is `--cwd`, else the input's `cwd`, else the current directory; a relative `--dir`
 * resolves against that project directory too.
 */
export const registerHookCommand: RegisterCommand = (program, context) => {
  withModelOptions(program.command("hook"))
    .description(`answer an agent hook (hook JSON on stdin): ${HOOK_EVENTS.join(", ")}`)
    .argument(
      "[event]",
      `${HOOK_EVENTS.join(" | ")} (or the host's spelling: UserPromptSubmit, BeforeAgent, …)`,
    )
    .option("--root <dir>", "memory root (default: $MEMDIR_ROOT, then $CLAUDE_CONFIG_DIR, then ~/.claude)")
    .option("--cwd <dir>", "project directory (default: the hook input's cwd, then the current directory)")
    .option("--dir <memory-dir>", "use this memory directory directly, bypassing project resolution")
    .option(
      "--timeout-ms <ms>",
      `answer {} if the hook takes longer than this (default: $${HOOK_TIMEOUT_ENV}, then ${DEFAULT_HOOK_TIMEOUT_MS})`,
    )
    .option("--explain", "say on stderr which mode applies (whole cycle or recall only) and why")
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (given: string | undefined, options: HookOptions) => {
      const event = given === undefined ? null : normalizeHookEvent(given);
      const label = event ?? given ?? "(no event)";
      const log = (reason: string) => context.io.stderr(`memdir: hook ${label}: ${reason}\n`);
      if (event === null) {
        log(
          given === undefined
            ? `no event named (one of ${HOOK_EVENTS.join(", ")}); nothing to add`
            : `unknown event "${given}" (one of ${HOOK_EVENTS.join(", ")}); nothing to add`,
        );
        context.io.stdout("{}\n");
        return;
      }
      // Everything the hook has to say goes out as ONE stderr line, after its answer is known.
      const reasons: string[] = [];
      const say = (reason: string) => {
        reasons.push(reason);
      };
      const bound = options.timeoutMs ?? (context.env[HOOK_TIMEOUT_ENV] || undefined);
      let timeoutMs = bound === undefined ? DEFAULT_HOOK_TIMEOUT_MS : Number(bound);
      if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
        const source = options.timeoutMs !== undefined ? "--timeout-ms" : HOOK_TIMEOUT_ENV;
        say(
          `${source} must be a positive number of milliseconds, got "${bound}"; using ${DEFAULT_HOOK_TIMEOUT_MS}`,
        );
        timeoutMs = DEFAULT_HOOK_TIMEOUT_MS;
      }
      const output: HookOutput = await bounded(
        timeoutMs,
        {},
        async (signal) => {
          const answer = await answerHook(event, options, context, signal, say);
          return hookOutput(event, answer.context, answer.dialect);
        },
        say,
      );
      if (Object.keys(output).length === 0 && reasons.length === 0) say("nothing to add");
      if (reasons.length > 0) log(reasons.join("; "));
      context.io.stdout(`${JSON.stringify(output)}\n`);
    });
};

async function answerHook(
  event: HookEvent,
  options: HookOptions,
  context: CommandContext,
  signal: AbortSignal,
  log: (reason: string) => void,
): Promise<{ context: string | null; dialect: HookDialect }> {
  const stdin = context.io.stdin ? await context.io.stdin(signal) : "";
  const input = parseHookInput(stdin);
  if (input === null) {
    log("stdin is not the hook's JSON object; nothing to add");
    return { context: null, dialect: "claude-code" };
  }
  const dialect = hookDialect(input);
  return { context: await hookContext(event, input, dialect, options, context, signal, log), dialect };
}

async function hookContext(
  event: HookEvent,
  input: HookInput,
  dialect: HookDialect,
  options: HookOptions,
  context: CommandContext,
  signal: AbortSignal,
  log: (reason: string) => void,
): Promise<string | null> {
  const env = context.env;
  // Cursor sends no `cwd`, and runs user-level hooks in ~/.cursor: its first workspace root is the project.
  const cwd = path.resolve(options.cwd ?? input.cwd ?? input.workspace_roots?.[0] ?? process.cwd());
  // A relative --dir means the same folder whatever directory the host started the hook in.
  const dir = options.dir ? path.resolve(cwd, options.dir) : undefined;
  const located = { ...options, cwd, dir };
  // Project settings (auto memory off, the model) are read from the project root, as `extract`
  // and `dream` read them: an agent working in a sub-folder must not escape them.
  const location = await locationFromOptions(located, context);
  const config = hookConfig(configFromOptions(located, context, location));
  const host = hostIsClaudeCode(env, input.transcript_path, config.claudeConfigDir) ? "claude-code" : "other";
  const mode = hookMode(config, host);
  if (options.explain) log(`mode: ${mode.reason}`);
  const action = HOOK_ACTIONS[event];
  if (action === "nothing") {
    log(`nothing to do at ${event}`);
    return null;
  }
  if (mode.mode === "off") {
    log(mode.reason);
    return null;
  }
  if (action === "extract")
    return planExtraction(input, { cwd, config, options, dir, location, mode, log, env });
  if (action === "session-context") {
    // Side by side: the warm-up check only lists folders, and never fails the hook.
    const [context] = await Promise.all([
      mode.mode === "full" ? sessionStartContext({ config, location }) : null,
      startWarmUpIfNeeded(location.memoryDir, env, log),
      mode.mode === "full" ? startSyncPull(location, config, env, log) : null,
    ]);
    if (mode.mode !== "full") log(`no index or rules at session start: ${mode.reason}`);
    return context;
  }
  if (dialect === "cursor") {
    // Cursor's beforeSubmitPrompt may allow or block a prompt but takes no context: no recall for nothing.
    log("Cursor takes no context before a prompt; recall goes through the memory_recall tool");
    return null;
  }
  if (input.prompt === undefined || input.prompt.trim() === "") {
    log("the hook input holds no prompt");
    return null;
  }
  // A model only when memdir itself is configured for one, never for a key the host happens to have.
  const modelConfig =
    config.model.optIn === null ? { ...config.model, provider: null, apiKey: undefined } : config.model;
  const { selector } = selectorFromConfig(undefined, { ...config, model: modelConfig });
  const parts = await userPromptContext({
    prompt: input.prompt,
    config,
    location,
    selector,
    signal,
    explicitSaves: mode.mode === "full",
  });
  return fitHookContext(parts);
}

function planExtraction(
  input: HookInput,
  state: {
    cwd: string;
    config: ReturnType<typeof configFromOptions>;
    options: HookOptions;
    dir: string | undefined;
    location: { memoryDir: string };
    mode: HookModeDecision;
    log: (reason: string) => void;
    env: NodeJS.ProcessEnv;
  },
): null {
  const { log } = state;
  if (state.mode.mode !== "full") {
    log(`no extraction: ${state.mode.reason}`);
    return null;
  }
  const plan = planStopHook({
    transcriptPath: input.transcript_path,
    cwd: state.cwd,
    config: state.config,
    root: state.options.root,
    dir: state.dir,
    memoryDir: state.location.memoryDir,
    lastAssistantMessage: input.last_assistant_message ?? input.prompt_response,
  });
  if ("skip" in plan) log(`no extraction: ${plan.skip}`);
  else log(`extraction started in the background (pid ${spawnDetachedMemdir(plan.run, state.env)})`);
  return null;
}

/** With `sync.auto` on, the bounded pull at session start, in the background (never delays the hook). */
async function startSyncPull(
  location: MemoryLocation,
  config: ResolvedConfig,
  env: NodeJS.ProcessEnv,
  log: (reason: string) => void,
): Promise<void> {
  const pid = await startAutoSync("session-start", location, config, env);
  if (pid !== undefined) log(`sync pull started in the background (pid ${pid})`);
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

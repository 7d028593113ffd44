import path from "node:path";
import { optedInModel, type ResolvedConfig } from "../../../config.ts";
import { isMemdirError } from "../../../errors.ts";
import { bounded, MAX_HOOK_INPUT_BYTES } from "../../../hooks/bounded.ts";
import { type ContextPart, fitHookContext } from "../../../hooks/context-limit.ts";
import { type HookModeDecision, hookConfig, hookMode } from "../../../hooks/mode.ts";
import { CLAUDE_CODE_STEPS_ASIDE } from "../../../hosts/claude-code/auto-memory.ts";
import { hostIsClaudeCode } from "../../../hosts/claude-code/recognize.ts";
import {
  HOOK_ACTIONS,
  HOOK_EVENTS,
  HOOK_HOSTS,
  type HookDialect,
  type HookEvent,
  type HookInput,
  type HookOutput,
  hookDialect,
  hookOutput,
  normalizeHookEvent,
  parseHookInput,
} from "../../../hosts/shared/hook-events.ts";
import type { Memdir } from "../../../memdir/instance.ts";
import type { MemoryLocation } from "../../../memdir/location/paths.ts";
import type { Selector } from "../../../recall/selector.ts";
import { withoutHostContext } from "../../../types.ts";
import {
  type CommandContext,
  type ModelOptions,
  type RegisterCommand,
  resolveFrom,
  withModelOptions,
} from "../../support/common.ts";
import { configFromOptions, locationFromOptions, memdirForCommand } from "../../support/location.ts";

interface HookOptions extends ModelOptions {
  root?: string;
  cwd?: string;
  dir?: string;
  timeoutMs?: string;
  explain?: boolean;
  host?: string;
}

/**
 * How long a hook may take by default (docs/design.md#hooks): an agent waits for it before its model call.
 * 8 s, under the 10 s host timeout `memdir setup` writes: on an idle box a prompt hook answers
 * in a fraction of a second, and the bound is reached only on a box so busy that the hook gets
 * little CPU. It was 3 s, and on this project's loaded 2-core box a warm hook at 2,000 memories
 * beside two CPU-bound processes ran past that and lost the memory it returns when idle (docs/design.md#the-prompt-hook-process).
 */
export const DEFAULT_HOOK_TIMEOUT_MS = 8000;

/** The longest a hook waits, after answering, for its cache files to be written (see saveCaches). */
const CACHE_SAVE_GRACE_MS = 5000;
/** The save after a slow answer gets what is left of the bound plus this (at least 0.5 s). */
const CACHE_SAVE_PAST_BOUND_MS = 1500;

/**
 * The context line a prompt hook answers with when its time bound cut recall short (docs/design.md#the-prompt-hook-process,
 * docs/design.md#the-prompt-hook-process):
 * the model is told memory was not consulted, instead of being shown nothing as if nothing
 * matched. Stderr says why (the bound, in ms).
 */
export const RECALL_CUT_SHORT_CONTEXT =
  "memdir: memory recall was cut short by its time bound for this prompt: memories that apply may exist but are not shown.";

/** What one hook run leaves for after its answer: the instance whose cache saves to finish. */
interface HookRun {
  /** The work itself, settled or not (it ends soon after the bound aborts it). */
  work: Promise<unknown> | null;
  /** The memory dir instance of a prompt hook; its cache files are saved after the answer. */
  memdir: Memdir | null;
  /** Recall had started when the bound ran out. */
  recalling: boolean;
  /** Whose answer format the host reads, once its input is parsed. */
  dialect: HookDialect;
  /** The event name the host sent (`hook_event_name`), which its answer must repeat. */
  hostEventName: string | null;
}

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
 * default 8000) give `{}` and one line on stderr (exit code 2 would block the host's prompt). The
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
    .option(
      "--host <agent>",
      `answer in this host's format when its payload does not tell (${HOOK_HOSTS.join(", ")}; memdir setup writes it)`,
    )
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
      const started = performance.now();
      const run: HookRun = {
        work: null,
        memdir: null,
        recalling: false,
        dialect: "claude-code",
        hostEventName: null,
      };
      let timedOut = false;
      let output: HookOutput = await bounded(
        timeoutMs,
        {},
        async (signal) => {
          const answer = answerHook(event, options, context, signal, say, run);
          run.work = answer;
          const { context: text, dialect } = await answer;
          return hookOutput(event, text, dialect, run.hostEventName);
        },
        (reason, kind) => {
          timedOut = kind === "timeout";
          say(kind === "timeout" && run.recalling ? `recall cut short: ${reason}` : reason);
        },
      );
      if (timedOut && run.recalling)
        output = hookOutput(event, RECALL_CUT_SHORT_CONTEXT, run.dialect, run.hostEventName);
      if (Object.keys(output).length === 0 && reasons.length === 0) say("nothing to add");
      if (reasons.length > 0) log(reasons.join("; "));
      context.io.stdout(`${JSON.stringify(output)}\n`);
      // Bounded so that answer and save together stay near the bound (under the host's timeout).
      const left = timeoutMs + CACHE_SAVE_PAST_BOUND_MS - (performance.now() - started);
      // Inside the memory helper the instance outlives this run: its saves finish in the background.
      if (context.memdirs === undefined)
        await saveCaches(run, Math.min(CACHE_SAVE_GRACE_MS, Math.max(500, left)));
    });
};

/**
 * After the answer is out, lets the cache files this run changed reach the disk (bounded by
 * `graceMs`): the process exits right after, and a save it cut off would make the next prompt
 * rebuild the whole index again (docs/design.md#the-prompt-hook-process). After a time-out the index read so far is saved too,
 * so a cold build goes on where it stopped instead of starting over.
 */
async function saveCaches(run: HookRun, graceMs: number): Promise<void> {
  const memdir = run.memdir;
  if (memdir === null) return;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, graceMs);
  });
  try {
    await Promise.race([run.work?.catch(() => undefined), deadline]);
    await Promise.race([memdir.flush(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function answerHook(
  event: HookEvent,
  options: HookOptions,
  context: CommandContext,
  signal: AbortSignal,
  log: (reason: string) => void,
  run: HookRun,
): Promise<{ context: string | null; dialect: HookDialect }> {
  let stdin: string | null;
  try {
    stdin = context.io.stdin ? await context.io.stdin(signal, MAX_HOOK_INPUT_BYTES) : "";
  } catch (error) {
    if (!isMemdirError(error, "invalid-input")) throw error;
    stdin = null;
  }
  // Read here or by the memory helper's client: a longer stdin is no host's payload (bounded.ts).
  if (stdin === null || Buffer.byteLength(stdin) > MAX_HOOK_INPUT_BYTES) {
    log(
      `stdin is over ${MAX_HOOK_INPUT_BYTES / (1024 * 1024)} MB, no hook's JSON; stopped reading; nothing to add`,
    );
    return { context: null, dialect: "claude-code" };
  }
  const input = parseHookInput(stdin);
  if (input === null) {
    log("stdin is not the hook's JSON object; nothing to add");
    return { context: null, dialect: "claude-code" };
  }
  const dialect = dialectFor(options.host, input, log);
  run.dialect = dialect;
  run.hostEventName = input.hook_event_name ?? null;
  return { context: await hookContext(event, input, dialect, options, context, signal, log, run), dialect };
}

/** The host named by `--host`, else the one the payload shows; an unknown name is said and ignored. */
function dialectFor(host: string | undefined, input: HookInput, log: (reason: string) => void): HookDialect {
  if (host === undefined) return hookDialect(input);
  if ((HOOK_HOSTS as readonly string[]).includes(host)) return host as HookDialect;
  log(
    `unknown --host "${host}" (one of ${HOOK_HOSTS.join(", ")}); answering in the format the payload shows`,
  );
  return hookDialect(input);
}

async function hookContext(
  event: HookEvent,
  input: HookInput,
  dialect: HookDialect,
  options: HookOptions,
  context: CommandContext,
  signal: AbortSignal,
  log: (reason: string) => void,
  run: HookRun,
): Promise<string | null> {
  const env = context.env;
  // Cursor sends no `cwd`, and runs user-level hooks in ~/.cursor: its first workspace root is the project.
  const cwd = resolveFrom(context, options.cwd ?? input.cwd ?? input.workspace_roots?.[0] ?? ".");
  // A relative --dir means the same folder whatever directory the host started the hook in.
  const dir = options.dir ? path.resolve(cwd, options.dir) : undefined;
  const located = { ...options, cwd, dir };
  // Project settings (auto memory off, the model) are read from the project root, as `extract`
  // and `dream` read them: an agent working in a sub-folder must not escape them.
  const location = await locationFromOptions(located, context, { cwdMustExist: false });
  const config = hookConfig(configFromOptions(located, context, location));
  // Claude Code is the one host whose own memory memdir steps aside for (its nativeMemory says so);
  // read from its own module: the registry would load every host's setup code, which no hook runs.
  const claudeCode = hostIsClaudeCode(env, input.transcript_path, config.claudeConfigDir);
  const mode = hookMode(config, claudeCode ? CLAUDE_CODE_STEPS_ASIDE : null);
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
  // Each event loads only the modules it runs (docs/design.md#the-prompt-hook-process: the prompt hook starts a process per
  // prompt, and the extraction, model and agent modules it does not use cost it ~100 ms).
  if (action === "extract")
    return planExtraction(input, { cwd, config, options, dir, location, mode, log, env });
  if (action === "session-context")
    return sessionContext({ location, config, mode, env, log, context, explained: options.explain === true });
  if (action === "file-context") {
    if (dialect === "cursor") {
      log("Cursor takes no context after a tool call; recall goes through the memory_recall tool");
      return null;
    }
    return fileContext(input, { cwd, location, log, run, context });
  }
  if (dialect === "cursor") {
    // Cursor's beforeSubmitPrompt may allow or block a prompt but takes no context: no recall for nothing.
    log("Cursor takes no context before a prompt; recall goes through the memory_recall tool");
    return null;
  }
  return promptContext(input, { location, config, mode, signal, log, run, context });
}

/** The session-start answer, with the warm-up, the sync pull and the helper started beside it. */
async function sessionContext(state: {
  location: MemoryLocation;
  config: ResolvedConfig;
  mode: HookModeDecision;
  env: NodeJS.ProcessEnv;
  log: (reason: string) => void;
  context: CommandContext;
  /** `--explain` has said the mode and its reason already: the reason is not said twice. */
  explained: boolean;
}): Promise<string | null> {
  const { location, config, mode, env, log, context } = state;
  const inHelper = context.memdirs !== undefined;
  // Side by side: the warm-up check only lists folders, and never fails the hook. A helper
  // started here loads the memory dir once idle, before the first prompt a person types (not
  // while a warm-up fills its caches: that warm-up asks the helper when it is done).
  const [sessionContext] = await Promise.all([
    mode.mode === "full"
      ? import("../../../hooks/session-start.ts").then((loaded) =>
          loaded.sessionStartContext({ config, location }),
        )
      : null,
    startWarmUpIfNeeded(location.memoryDir, env, log, context),
    mode.mode === "full" ? startSyncPull(location, config, env, log) : null,
    inHelper ? null : startHelper(env, log, location.memoryDir),
  ]);
  if (mode.mode !== "full")
    log(
      state.explained
        ? "no index or rules at session start"
        : `no index or rules at session start: ${mode.reason}`,
    );
  return sessionContext;
}

/** The prompt hook's answer: recall for the user's words, minus what this session was already shown. */
async function promptContext(
  input: HookInput,
  state: {
    location: MemoryLocation;
    config: ResolvedConfig;
    mode: HookModeDecision;
    signal: AbortSignal;
    log: (reason: string) => void;
    run: HookRun;
    context: CommandContext;
  },
): Promise<string | null> {
  const { location, config, mode, signal, log, run, context } = state;
  // The user's words only: Gemini CLI wraps its context blocks around them (withoutHostContext).
  const prompt = withoutHostContext(input.prompt ?? "");
  if (prompt.trim() === "") {
    // Qwen Code fires its prompt event again with "prompt": "" after every tool round: no recall for nothing.
    log("the hook input holds no prompt");
    return null;
  }
  // From here on, running out of time means memory for this prompt was not consulted.
  run.recalling = true;
  const selector = await promptSelector(config, log);
  const [{ userPromptContext }, ledger] = await Promise.all([
    import("../../../hooks/user-prompt-submit.ts"),
    import("../../../hooks/session-seen.ts"),
  ]);
  run.memdir = memdirForCommand(location, context);
  const sessionId = input.session_id;
  // What this session was already shown, by an earlier prompt or a file the agent touched.
  const seen = sessionId ? await ledger.readSessionSeen(location.memoryDir, sessionId) : null;
  const parts = await userPromptContext({
    prompt,
    config,
    location,
    selector,
    signal,
    memdir: run.memdir,
    explicitSaves: mode.mode === "full",
    ...(sessionId ? { sessionId } : {}),
    alreadySurfaced: seen?.paths,
    surfacedBytes: seen?.bytes,
  });
  const fitted = fitHookContext(parts);
  if (sessionId) await recordShown(ledger, location.memoryDir, sessionId, parts, fitted, log);
  return fitted;
}

/** The prompt hook's selector: lexical unless memdir itself is configured for a model. */
async function promptSelector(config: ResolvedConfig, log: (reason: string) => void): Promise<Selector> {
  // A model only when memdir itself is configured for one, never for a key the host happens to have.
  const modelConfig = optedInModel(config.model);
  if (modelConfig.provider !== null) {
    const { missingKeyReason } = await import("../../../hooks/missing-key.ts");
    const missing = missingKeyReason(modelConfig);
    if (missing !== null) log(`recall is lexical: ${missing}`);
  }
  return modelConfig.provider === null
    ? (await import("../../../recall/select-lexical.ts")).createLexicalSelector()
    : (await import("../../../recall/select-from-config.ts")).selectorFromConfig(undefined, {
        ...config,
        model: modelConfig,
      }).selector;
}

type SessionLedger = typeof import("../../../hooks/session-seen.ts");

async function recordShown(
  ledger: SessionLedger,
  memoryDir: string,
  sessionId: string,
  parts: readonly ContextPart[],
  fitted: string | null,
  log: (reason: string) => void,
): Promise<void> {
  const shown = ledger.shownMemories(parts, fitted);
  if (!(await ledger.recordSessionSeen(memoryDir, sessionId, shown)))
    log("could not note the memories shown to this session; they may be shown again");
}

/**
 * `post-tool-use` (Gemini CLI: `AfterTool`): the memories about the file a tool just read or
 * edited, once per session (docs/design.md#file-hook). A tool that is not a file tool, or a file
 * outside the project, costs the JSON parse only: nothing of memory or recall is loaded.
 */
async function fileContext(
  input: HookInput,
  state: {
    cwd: string;
    location: MemoryLocation;
    log: (reason: string) => void;
    run: HookRun;
    context: CommandContext;
  },
): Promise<string | null> {
  const { cwd, location, log } = state;
  const { toolFilePath, writesFile } = await import("../../../hosts/shared/tool-file.ts");
  const file = toolFilePath(input.tool_name, input.tool_input, cwd);
  if (file === null) {
    log(
      input.tool_name === undefined
        ? "the hook input names no tool"
        : `${input.tool_name} is not a file tool memdir knows, or names no file`,
    );
    return null;
  }
  // The model's own tool wrote into the memory dir: told at once when the text steers a future
  // session (src/hooks/memory-write.ts). Such a file is no project file with memories about it.
  const writeNote = writesFile(input.tool_name)
    ? await (await import("../../../hooks/memory-write.ts")).memoryWriteNote(file, location.memoryDir)
    : null;
  if (writeNote !== null) {
    log(`${file}: the text written reads as an instruction; told the model`);
    return writeNote;
  }
  const [{ fileMemories }, ledger, { anchorRoot }] = await Promise.all([
    import("../../../hooks/file-memories.ts"),
    import("../../../hooks/session-seen.ts"),
    import("../../../memdir/trust/anchors.ts"),
  ]);
  const projectRoot = location.projectRoot ?? (await anchorRoot(location.memoryDir)) ?? cwd;
  const sessionId = input.session_id;
  if (!sessionId) log("the hook input has no session_id: memories about this file may repeat");
  const seen = sessionId
    ? await ledger.readSessionSeen(location.memoryDir, sessionId)
    : { paths: new Set<string>(), bytes: 0 };
  state.run.memdir = memdirForCommand(location, state.context);
  const found = await fileMemories({
    memoryDir: location.memoryDir,
    projectRoot,
    file,
    seen,
    memdir: state.run.memdir,
  });
  if (found.relativePath === null) {
    log(`${file} is outside the project`);
    return null;
  }
  if (found.parts.length === 0) {
    log(`no memory about ${found.relativePath} this session has not seen`);
    return null;
  }
  const fitted = fitHookContext(found.parts);
  if (sessionId) await recordShown(ledger, location.memoryDir, sessionId, found.parts, fitted, log);
  return fitted;
}

async function planExtraction(
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
): Promise<null> {
  const { log } = state;
  if (state.mode.mode !== "full") {
    log(`no extraction: ${state.mode.reason}`);
    return null;
  }
  const [{ planStopHook }, { spawnDetachedMemdir }] = await Promise.all([
    import("../../../hooks/stop.ts"),
    import("../../../hooks/spawn.ts"),
  ]);
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
  const { startAutoSync } = await import("../../support/auto-sync.ts");
  const pid = await startAutoSync("session-start", location, config, env);
  if (pid !== undefined) log(`sync pull started in the background (pid ${pid})`);
}

/**
 * Starts `memdir warm-up` in the background when the memory dir is big and its caches are
 * missing or stale, so the session's first `user-prompt-submit` finds them ready instead of
 * running out of its time bound while building them. Inside the memory helper, a dir that needs
 * no warm-up is loaded into the helper after this answer instead (docs/design.md#the-memory-helper).
 * Never delays or fails the hook.
 */
async function startWarmUpIfNeeded(
  memoryDir: string,
  env: NodeJS.ProcessEnv,
  log: (reason: string) => void,
  context: CommandContext,
): Promise<void> {
  try {
    if (await helperHoldsIndex(memoryDir, env, context)) return;
    const { warmUpDecision } = await import("../../../hooks/warm-up.ts");
    const decision = await warmUpDecision(memoryDir, env);
    if (!decision.warm) {
      // A warm-up under way asks the helper to load the dir when it is done.
      if (decision.running === undefined) context.memdirs?.preloadLater(memoryDir, env);
      return;
    }
    const { spawnDetachedMemdir } = await import("../../../hooks/spawn.ts");
    const pid = spawnDetachedMemdir(["warm-up", "--dir", memoryDir], env);
    log(`cache warm-up started in the background (pid ${pid}): ${decision.reason}`);
  } catch (error) {
    log(`no cache warm-up: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Whether this run is the memory helper's and it already holds the lexical index of `memoryDir`:
 * then the helper, which answers this dir's prompts, is warm, and checking the cache files
 * (listing every folder: ~6 ms of a session start at 20,000 memories) could only start a warm-up
 * that redoes what the helper has in memory and saves itself.
 */
async function helperHoldsIndex(
  memoryDir: string,
  env: NodeJS.ProcessEnv,
  context: CommandContext,
): Promise<boolean> {
  const memdir = context.memdirs?.kept(memoryDir, env);
  if (memdir === undefined) return false;
  const { holdsLexicalIndex } = await import("../../../recall/select-lexical.ts");
  return holdsLexicalIndex(memdir, memoryDir);
}

/**
 * Starts the memory helper in the background when it is on (`MEMDIR_HELPER`, default on) and
 * none answers (docs/design.md#the-memory-helper). Never delays or fails the hook.
 */
async function startHelper(
  env: NodeJS.ProcessEnv,
  log: (reason: string) => void,
  preload: string | undefined,
): Promise<void> {
  try {
    const { helperEnabled } = await import("../../../helper/paths.ts");
    if (!helperEnabled(env)) return;
    const [{ startHelperIfNone }, { spawnDetachedMemdir }] = await Promise.all([
      import("../../../helper/ask.ts"),
      import("../../../hooks/spawn.ts"),
    ]);
    const serve = preload === undefined ? ["helper", "serve"] : ["helper", "serve", "--preload", preload];
    const line = await startHelperIfNone(env, () => spawnDetachedMemdir(serve, env));
    if (line !== null) log(line);
  } catch (error) {
    log(`no memory helper: ${error instanceof Error ? error.message : String(error)}`);
  }
}

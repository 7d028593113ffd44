import { randomUUID } from "node:crypto";
import path from "node:path";
import { createHookRegistry, type HookRegistry } from "../agent/hooks.ts";
import { type LoopEvent, type LoopMemory, queryLoop } from "../agent/loop.ts";
import { mainAgentPermissions, type PermissionCheck } from "../agent/permissions.ts";
import { createToolContext, type ToolContext, type ToolSpec } from "../agent/tools/spec.ts";
import { defaultTools } from "../agent/tools.ts";
import { loadTranscript, openTranscript, type Transcript, transcriptPath } from "../agent/transcript.ts";
import { type ResolvedConfig, resolveConfig } from "../config.ts";
import { maybeStartConsolidation } from "../dream/consolidate.ts";
import { SessionScanThrottle } from "../dream/gate.ts";
import { changeRecorder } from "../dream/history.ts";
import { installMemoryHooks, type MemoryHooks } from "../extract/wire.ts";
import { createInstructionLoader } from "../instructions/loader.ts";
import { loadMemoryRules } from "../instructions/memory-rules.ts";
import { formatUserContext } from "../instructions/user-context.ts";
import { type Memdir, openMemdir } from "../memdir/instance.ts";
import { type MemoryLocation, projectOf, resolveMemoryLocation } from "../memdir/location/paths.ts";
import type { ModelClient } from "../model/client.ts";
import { requireModel } from "../model/factory.ts";
import { selectorFromConfig } from "../recall/select-from-config.ts";
import type { Selector } from "../recall/selector.ts";
import type { Clock, Message } from "../types.ts";

/**
 * Where a session works and the environment it reads, which the entry point decides (the root's
 * `createAgentSession` takes the process's when they are not given; the CLI its own).
 */
export interface SessionPlace {
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface AgentSessionOptions {
  cwd?: string;
  root?: string;
  /** Use this memory dir directly (`--dir`). */
  dir?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
  provider?: string;
  model?: string;
  baseURL?: string;
  /** A client of your own; otherwise the configured provider (`requireModel`: no provider → clear error). */
  client?: ModelClient;
  /** Recall selector; default hybrid when a model is configured, else lexical. */
  selector?: Selector;
  /** Continue this session id (its transcript must exist). */
  resume?: string;
  /** Extra `--add-dir` directories whose instruction files load too. */
  addDirs?: string[];
  /** Managed-policy instruction dir (default: the platform's; tests and the demo point it at a temp dir). */
  managedDir?: string;
  /** The agent's own system prompt (the memory rules are appended). */
  systemPrompt?: string;
  tools?: readonly ToolSpec[];
  maxTurns?: number;
  now?: Clock;
  /**
   * Install memdir's own hooks: the explicit "remember …" rule, background extraction and
   * consolidation (each subject to its switches). Default true.
   */
  memoryHooks?: boolean;
  /** Hook failures and other background trouble (default: stderr). */
  log?: (message: string) => void;
  /** Lines for the user from background work (e.g. `Saved 1 memory`). */
  notify?: (text: string) => void;
  /**
   * The instance of the session's memory dir, shared with the embedder (kept open by `close`);
   * by default the session opens one and closes it with itself.
   */
  memdir?: Memdir;
}

/** Everything one agent session needs, built from configuration in one place. */
export interface AgentSession {
  sessionId: string;
  config: ResolvedConfig;
  location: MemoryLocation;
  /** Null when auto memory is off. */
  memory: LoopMemory | null;
  /** The project the agent may write in (the git root, else cwd). */
  projectRoot: string;
  client: ModelClient;
  tools: readonly ToolSpec[];
  permissions: PermissionCheck;
  toolContext: ToolContext;
  hooks: HookRegistry;
  transcript: Transcript;
  systemPrompt: string;
  /** The conversation so far (grows with each turn). */
  messages: Message[];
  /** Runs one user turn through the loop, recording every message in the transcript. */
  runTurn(text: string, options?: { signal?: AbortSignal }): AsyncGenerator<LoopEvent, void>;
  /** Waits for background hooks (up to `timeoutMs`, default 60 s) and closes the transcript. */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

/** The reference agent's own instructions, before the memory rules. */
export function referenceAgentPrompt(projectRoot: string): string {
  return [
    "You are a careful coding agent working in the project at",
    `${projectRoot}. Use the tools (Read, Write, Edit, Glob, Grep) to look at and change files;`,
    "read before you edit, keep changes small, and answer briefly when you are done.",
  ].join(" ");
}

/**
 * Builds a session from configuration: memory location, instruction files and index (the user
 * context, read once per session), memory rules, model client, recall prefetch context,
 * permissions, tools, hooks and the transcript (`<projectDir>/<sessionId>.jsonl`, docs/design.md#transcripts).
 * `resume` loads an earlier transcript and continues appending to it.
 *
 * @example
 * const session = await createAgentSession({ cwd: "/Users/me/shop", env: process.env });
 * for await (const event of session.runTurn("fix the failing login test")) {
 *   if (event.type === "text_delta") process.stdout.write(event.text);
 * }
 * await session.close();
 */
export async function createAgentSession(options: SessionPlace & AgentSessionOptions): Promise<AgentSession> {
  const basis = await resolveSessionBasis(options);
  const { config, location, projectRoot, client, now, log } = basis;
  const { rules, userContext } = await loadSessionInstructions(basis, options);
  const memoryDir = config.autoMemory ? location.memoryDir : null;
  const toolContext = createToolContext({ cwd: basis.cwd, memoryDir, now });
  // The session's caches and folder watchers, unless the embedder shares an instance of its own.
  const ownedMemdir =
    memoryDir !== null && options.memdir === undefined
      ? openMemdir(memoryDir, { env: basis.env, clock: now })
      : null;
  const memdir = memoryDir === null ? undefined : (options.memdir ?? ownedMemdir ?? undefined);
  const memory = sessionMemory(basis, options, { memoryDir, rules, toolContext, memdir });
  const hooks = createHookRegistry({ log });
  const permissions = mainAgentPermissions({ projectRoot, memoryDir });
  const memoryHooks = installMemoryHooks({
    hooks,
    memoryDir: options.memoryHooks === false ? null : memoryDir,
    cwd: basis.cwd,
    memdir,
    client,
    model: options.model,
    bare: config.bare,
    now,
    log,
    notify: options.notify,
    memoryMode: config.memoryMode,
    projectRoot,
    // A "remember …" or "forget …" is one history entry that `memdir undo` takes back (docs/design.md#undo).
    record: changeRecorder({ command: "agent session", now }),
  });
  const messages = options.resume
    ? loadTranscript(transcriptPath(location.projectDir, options.resume)).messages
    : [];
  const transcript = openTranscript({ projectDir: location.projectDir, sessionId: options.resume });
  // The main agent's own writes are explicit ones (docs/design.md#provenance).
  toolContext.origin = { source: "agent", session: transcript.sessionId, projectRoot };
  if (memoryDir !== null && options.memoryHooks !== false && config.autoDream.enabled)
    installConsolidationHook(hooks, basis, options, { memoryDir, sessionId: transcript.sessionId });
  return assembleSession(basis, options, {
    memory,
    tools: options.tools ?? defaultTools,
    permissions,
    toolContext,
    hooks,
    memoryHooks,
    transcript,
    systemPrompt: options.systemPrompt ?? referenceAgentPrompt(projectRoot),
    userContext,
    messages,
    ownedMemdir,
  });
}

/** What every later step of building a session reads: settings, the memory location, the client. */
interface SessionBasis {
  env: NodeJS.ProcessEnv;
  home: string | undefined;
  now: Clock;
  cwd: string;
  location: MemoryLocation;
  projectRoot: string;
  config: ResolvedConfig;
  client: ModelClient;
  log: (message: string) => void;
}

/** Step 1: where memory lives, the configuration, and the model client (no provider → clear error). */
async function resolveSessionBasis(options: SessionPlace & AgentSessionOptions): Promise<SessionBasis> {
  const env = options.env;
  const home = options.home ?? (env.HOME || undefined);
  const now = options.now ?? Date.now;
  const cwd = path.resolve(options.cwd);
  const location = await resolveMemoryLocation({ cwd, root: options.root, dir: options.dir, env, home });
  const projectRoot = projectOf(location) ?? cwd;
  const config = resolveConfig({
    cwd,
    root: options.root,
    env,
    home,
    projectRoot,
    provider: options.provider,
    model: options.model,
    baseURL: options.baseURL,
  });
  const client = options.client ?? requireModel(config.model);
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  return { env, home, now, cwd, location, projectRoot, config, client, log };
}

/** Step 2: the memory rules (null when auto memory is off) and the user context, read once per session. */
async function loadSessionInstructions(
  basis: SessionBasis,
  options: AgentSessionOptions,
): Promise<{ rules: string | null; userContext: string }> {
  const { config, location, home, env } = basis;
  const rules = await loadMemoryRules({ config, location });
  const files = await createInstructionLoader().getMemoryFiles({
    config,
    cwd: basis.cwd,
    home,
    root: options.root,
    addDirs: options.addDirs,
    managedDir: options.managedDir,
    memoryDir: options.dir ? location.memoryDir : undefined,
    env,
  });
  return { rules, userContext: formatUserContext(files, { now: basis.now }) };
}

/** Step 3: what the loop needs for memory (rules and the recall prefetch), or null when memory is off. */
function sessionMemory(
  basis: SessionBasis,
  options: AgentSessionOptions,
  parts: { memoryDir: string | null; rules: string | null; toolContext: ToolContext; memdir?: Memdir },
): LoopMemory | null {
  const { memoryDir, rules } = parts;
  if (memoryDir === null || rules === null) return null;
  const { config, location, now, log } = basis;
  return {
    memoryDir,
    rules,
    prefetch: {
      location,
      selector: options.selector ?? selectorFromConfig(undefined, config).selector,
      autoMemory: config.autoMemory,
      readFileState: parts.toolContext.readFileState,
      memdir: parts.memdir,
      now,
      onError: (error) =>
        log(`memdir: recall failed: ${error instanceof Error ? error.message : String(error)}`),
    },
  };
}

/** Step 4: consolidation as a stop hook, after extraction's (the gates decide whether it runs). */
function installConsolidationHook(
  hooks: HookRegistry,
  basis: SessionBasis,
  options: AgentSessionOptions,
  parts: { memoryDir: string; sessionId: string },
): void {
  const { config, location, client, log, now } = basis;
  const throttle = new SessionScanThrottle();
  hooks.onStop("dream", async (context) => {
    await maybeStartConsolidation({
      settings: config.autoDream,
      memoryDir: parts.memoryDir,
      projectDir: location.projectDir,
      client,
      model: options.model,
      currentSessionId: parts.sessionId,
      isMainAgent: context.isMainAgent,
      throttle,
      notify: context.notify,
      log,
      now,
    });
  });
}

/** Step 5: the session object; each turn goes through the loop and into the transcript. */
function assembleSession(
  basis: SessionBasis,
  options: AgentSessionOptions,
  parts: {
    memory: LoopMemory | null;
    tools: readonly ToolSpec[];
    permissions: PermissionCheck;
    toolContext: ToolContext;
    hooks: HookRegistry;
    memoryHooks: MemoryHooks;
    transcript: Transcript;
    systemPrompt: string;
    userContext: string;
    messages: Message[];
    /** Closed with the session: the instance the session opened itself (null: none, or the embedder's). */
    ownedMemdir: Memdir | null;
  },
): AgentSession {
  const { client, now } = basis;
  const { memory, tools, permissions, toolContext, hooks, memoryHooks, transcript, systemPrompt } = parts;
  const session: AgentSession = {
    sessionId: transcript.sessionId,
    config: basis.config,
    location: basis.location,
    memory,
    projectRoot: basis.projectRoot,
    client,
    tools,
    permissions,
    toolContext,
    hooks,
    transcript,
    systemPrompt,
    messages: parts.messages,
    async *runTurn(text, turnOptions = {}) {
      const userMessage: Message = {
        id: randomUUID(),
        role: "user",
        content: text,
        timestamp: new Date(now()).toISOString(),
      };
      session.messages = [...session.messages, userMessage];
      transcript.append(userMessage);
      for await (const event of queryLoop({
        messages: session.messages,
        systemPrompt,
        userContext: parts.userContext,
        tools,
        client,
        memory,
        signal: turnOptions.signal,
        maxTurns: options.maxTurns,
        permissions,
        toolContext,
        hooks,
        isMainAgent: true,
        notify: options.notify,
        now,
      })) {
        if (event.type === "message") transcript.append(event.message);
        if (event.type === "turn_end") session.messages = event.messages;
        yield event;
      }
    },
    async close(closeOptions = {}) {
      await hooks.drain(closeOptions.timeoutMs);
      await memoryHooks.drain(closeOptions.timeoutMs);
      memoryHooks.dispose();
      transcript.close();
      await parts.ownedMemdir?.close();
    },
  };
  return session;
}

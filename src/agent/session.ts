import { randomUUID } from "node:crypto";
import path from "node:path";
import { processEnv, type ResolvedConfig, resolveConfig } from "../config.ts";
import { maybeStartConsolidation } from "../dream/consolidate.ts";
import { SessionScanThrottle } from "../dream/gate.ts";
import { installMemoryHooks } from "../extract/wire.ts";
import { createInstructionLoader } from "../instructions/loader.ts";
import { loadMemoryRules } from "../instructions/memory-rules.ts";
import { formatUserContext } from "../instructions/user-context.ts";
import { type Memdir, openMemdir } from "../memdir/instance.ts";
import { type MemoryLocation, resolveMemoryLocation } from "../memdir/paths.ts";
import type { ModelClient } from "../model/client.ts";
import { requireModel } from "../model/factory.ts";
import { selectorFromConfig } from "../recall/select-from-config.ts";
import type { Selector } from "../recall/selector.ts";
import type { Clock, Message } from "../types.ts";
import { createHookRegistry, type HookRegistry } from "./hooks.ts";
import { type LoopEvent, type LoopMemory, queryLoop } from "./loop.ts";
import { mainAgentPermissions, type PermissionCheck } from "./permissions.ts";
import { createToolContext, type ToolContext, type ToolSpec } from "./tools/spec.ts";
import { defaultTools } from "./tools.ts";
import { loadTranscript, openTranscript, type Transcript, transcriptPath } from "./transcript.ts";

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
 * permissions, tools, hooks and the transcript (`<projectDir>/<sessionId>.jsonl`, SPEC §7).
 * `resume` loads an earlier transcript and continues appending to it.
 *
 * @example
 * const session = await createAgentSession({ cwd: "/Users/me/shop" });
 * for await (const event of session.runTurn("fix the failing login test")) {
 *   if (event.type === "text_delta") process.stdout.write(event.text);
 * }
 * await session.close();
 */
export async function createAgentSession(options: AgentSessionOptions = {}): Promise<AgentSession> {
  const env = options.env ?? processEnv();
  const home = options.home ?? (env.HOME || undefined);
  const now = options.now ?? Date.now;
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const location = await resolveMemoryLocation({ cwd, root: options.root, dir: options.dir, env, home });
  const projectRoot = location.projectRoot ?? cwd;
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

  const rules = await loadMemoryRules({ config, location });
  const loader = createInstructionLoader();
  const files = await loader.getMemoryFiles({
    config,
    cwd,
    home,
    root: options.root,
    addDirs: options.addDirs,
    managedDir: options.managedDir,
    memoryDir: options.dir ? location.memoryDir : undefined,
    env,
  });
  const userContext = formatUserContext(files, { now });

  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const memoryDir = config.autoMemory ? location.memoryDir : null;
  const toolContext = createToolContext({ cwd, memoryDir, now });
  // The session's caches and folder watchers, unless the embedder shares an instance of its own.
  const ownsMemdir = memoryDir !== null && options.memdir === undefined;
  const memdir = memoryDir === null ? null : (options.memdir ?? openMemdir(memoryDir, { env, clock: now }));
  const memory: LoopMemory | null =
    memoryDir === null || rules === null
      ? null
      : {
          memoryDir,
          rules,
          prefetch: {
            location,
            selector: options.selector ?? selectorFromConfig(undefined, config).selector,
            autoMemory: config.autoMemory,
            readFileState: toolContext.readFileState,
            memdir: memdir ?? undefined,
            now,
            onError: (error) =>
              log(`memdir: recall failed: ${error instanceof Error ? error.message : String(error)}`),
          },
        };
  const hooks = createHookRegistry({ log });
  const permissions = mainAgentPermissions({ projectRoot, memoryDir });
  const memoryHooks = installMemoryHooks({
    hooks,
    memoryDir: options.memoryHooks === false ? null : memoryDir,
    memdir: memdir ?? undefined,
    client,
    model: options.model,
    bare: config.bare,
    now,
    log,
    notify: options.notify,
  });
  const tools = options.tools ?? defaultTools;
  const systemPrompt = options.systemPrompt ?? referenceAgentPrompt(projectRoot);

  let messages: Message[] = [];
  if (options.resume) messages = loadTranscript(transcriptPath(location.projectDir, options.resume)).messages;
  const transcript = openTranscript({ projectDir: location.projectDir, sessionId: options.resume });
  if (memoryDir !== null && options.memoryHooks !== false && config.autoDream.enabled) {
    const throttle = new SessionScanThrottle();
    hooks.onStop("dream", async (context) => {
      await maybeStartConsolidation({
        settings: config.autoDream,
        memoryDir,
        projectDir: location.projectDir,
        client,
        model: options.model,
        currentSessionId: transcript.sessionId,
        isMainAgent: context.isMainAgent,
        throttle,
        notify: context.notify,
        log,
        now,
      });
    });
  }

  const session: AgentSession = {
    sessionId: transcript.sessionId,
    config,
    location,
    memory,
    projectRoot,
    client,
    tools,
    permissions,
    toolContext,
    hooks,
    transcript,
    systemPrompt,
    messages,
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
        userContext,
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
      if (ownsMemdir) await memdir?.close();
    },
  };
  return session;
}

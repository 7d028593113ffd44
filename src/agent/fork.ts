import { randomUUID } from "node:crypto";
import type { WriteOrigin } from "../memdir/trust/provenance.ts";
import type { ModelClient } from "../model/client.ts";
import type { Clock, Message } from "../types.ts";
import { type LoopEvent, queryLoop, type TurnEndReason } from "./loop.ts";
import type { PermissionCheck } from "./permissions.ts";
import { createToolContext, type ToolSpec } from "./tools/spec.ts";

export interface ForkedAgentOptions {
  /** The conversation so far (the parent's messages); not modified. */
  messages: readonly Message[];
  /** The task, sent as a new user message after the conversation. */
  prompt: string;
  tools: readonly ToolSpec[];
  client: ModelClient;
  permissions: PermissionCheck;
  /** Where relative paths resolve. */
  cwd: string;
  /** Writes inside it go through the single writer. */
  memoryDir?: string | null;
  /** The memory dir the model knows, when `memoryDir` is a scratch copy of it (`ToolContext.shownMemoryDir`). */
  shownMemoryDir?: string;
  systemPrompt?: string;
  model?: string;
  maxTokens?: number;
  /** Model calls (default 5, docs/design.md#the-forked-agent). */
  maxTurns?: number;
  /** The parent's signal: aborting it aborts the fork; the fork's own abort never touches the parent. */
  signal?: AbortSignal;
  now?: Clock;
  /** Sees every event (logs, tests). */
  onEvent?: (event: LoopEvent) => void;
  /** Who the fork writes as (`extraction`, `consolidation`): stamped, and quarantined by (docs/design.md#quarantine). */
  origin?: WriteOrigin;
}

/** A tool call the permission check refused. */
export interface RefusedCall {
  tool: string;
  input: unknown;
  message: string;
}

export interface ForkedAgentResult {
  /** The whole conversation: the parent's messages, the prompt, and what the fork added. */
  messages: Message[];
  /** Absolute paths the fork wrote, in order, without repeats. */
  filesWritten: string[];
  refused: RefusedCall[];
  /** Model calls made. */
  turns: number;
  reason: TurnEndReason;
  /** The fork's last assistant text. */
  text: string;
  error?: Error;
}

/**
 * Runs a forked agent (docs/design.md#the-forked-agent): the parent's conversation plus `prompt`, its own tool context
 * (own read-file state), its own abort controller linked to the parent's signal, no memory
 * recall, no hooks, no transcript, at most `maxTurns` model calls. Used by extraction (docs/design.md#explicit-remember)
 * and consolidation (docs/design.md#consolidation). Never throws: failures come back in `error`.
 *
 * @example
 * const run = await runForkedAgent({messages, prompt: extractionPrompt, tools: defaultTools, client,
 *   permissions: memoryOnlyPermissions({memoryDir}), memoryDir, signal});
 * run.filesWritten // ["/…/memory/feedback-real-database.md", "/…/memory/MEMORY.md"]
 */
export async function runForkedAgent(options: ForkedAgentOptions): Promise<ForkedAgentResult> {
  const controller = new AbortController();
  const onParentAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) controller.abort(options.signal.reason);
  else options.signal?.addEventListener("abort", onParentAbort, { once: true });

  const now = options.now ?? Date.now;
  const toolContext = createToolContext({
    cwd: options.cwd,
    memoryDir: options.memoryDir ?? null,
    now,
    signal: controller.signal,
    origin: options.origin,
    ...(options.shownMemoryDir ? { shownMemoryDir: options.shownMemoryDir } : {}),
  });
  const promptMessage: Message = {
    id: randomUUID(),
    role: "user",
    content: options.prompt,
    timestamp: new Date(now()).toISOString(),
  };
  const result: ForkedAgentResult = {
    messages: [...options.messages, promptMessage],
    filesWritten: [],
    refused: [],
    turns: 0,
    reason: "end_turn",
    text: "",
  };
  const inputs = new Map<string, unknown>();
  try {
    for await (const event of queryLoop({
      messages: result.messages,
      systemPrompt: options.systemPrompt,
      tools: options.tools,
      client: options.client,
      model: options.model,
      maxTokens: options.maxTokens,
      memory: null,
      signal: controller.signal,
      maxTurns: options.maxTurns ?? 5,
      permissions: options.permissions,
      toolContext,
      isMainAgent: false,
      now,
    })) {
      options.onEvent?.(event);
      if (event.type === "tool_call") inputs.set(event.id, event.input);
      if (event.type === "tool_result" && event.refused)
        result.refused.push({ tool: event.name, input: inputs.get(event.id), message: event.content });
      if (event.type === "error") result.error = event.error;
      if (event.type === "turn_end") {
        result.messages = event.messages;
        result.turns = event.turns;
        result.reason = event.reason;
        result.text = event.text;
      }
    }
  } finally {
    options.signal?.removeEventListener("abort", onParentAbort);
    controller.abort();
  }
  result.filesWritten = [...new Set(toolContext.filesWritten)];
  return result;
}

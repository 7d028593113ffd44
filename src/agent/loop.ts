import { randomUUID } from "node:crypto";
import { MemdirError } from "../errors.ts";
import { prependUserContext, USER_CONTEXT_MESSAGE_ID } from "../instructions/user-context.ts";
import type { ModelClient, ModelRequest, ModelResponse, ToolDefinition, Usage } from "../model/client.ts";
import {
  collectSettledMemories,
  type PrefetchContext,
  startRelevantMemoryPrefetch,
} from "../recall/prefetch.ts";
import { surfacedMemoryPath, wrapSystemReminder } from "../recall/surface.ts";
import {
  type Clock,
  type ContentBlock,
  lastRealUserMessage,
  type Message,
  type ToolResultBlock,
  type ToolUseBlock,
} from "../types.ts";
import type { HookRegistry } from "./hooks.ts";
import type { PermissionCheck } from "./permissions.ts";
import { type ToolContext, type ToolResult, type ToolSpec, toolDefinition } from "./tools/spec.ts";

/** The memory side of a loop; `null` (auto memory off) means no rules, no index, no recall. */
export interface LoopMemory {
  memoryDir: string;
  /** The memory rules for the system prompt (`memorySystemPrompt`). */
  rules: string;
  /** Everything the relevance prefetch needs (memory dir, selector…); omitted → no recall. */
  prefetch?: PrefetchContext;
}

export interface QueryLoopOptions {
  /** The conversation so far, ending with the user message to answer. Not modified. */
  messages: Message[];
  /** The agent's own system prompt; the memory rules are appended to it. */
  systemPrompt?: string;
  /**
   * The user context (instruction files + `MEMORY.md` index, `formatUserContext`), sent as the
   * first hidden user message so the index is in the very first request (docs/design.md#the-user-context).
   */
  userContext?: string | null;
  tools: readonly ToolSpec[];
  client: ModelClient;
  model?: string;
  /** Per model call (default 8192). */
  maxTokens?: number;
  memory?: LoopMemory | null;
  signal?: AbortSignal;
  /** Model calls per turn before the loop gives up (default 20). */
  maxTurns?: number;
  permissions: PermissionCheck;
  toolContext: ToolContext;
  /** Before-model and stop hooks; forked agents pass none. */
  hooks?: HookRegistry;
  /** True for the main agent: stop hooks run only there (docs/design.md#when-extraction-runs). Default true when hooks are given. */
  isMainAgent?: boolean;
  /** Lines for the user from stop hooks that finish after the turn (e.g. `Saved 1 memory`). */
  notify?: (text: string) => void;
  now?: Clock;
  newId?: () => string;
}

/** Why a turn ended. */
export type TurnEndReason = "end_turn" | "max_tokens" | "max_turns" | "aborted" | "error";

/** What the loop reports while it runs, for UIs, transcripts and tests. */
export type LoopEvent =
  /** A piece of assistant text as it streams. */
  | { type: "text_delta"; text: string }
  /** Every message the loop adds to the conversation (user context, assistant, tool results, memories). */
  | { type: "message"; message: Message }
  | { type: "assistant_message"; message: Message }
  | { type: "tool_call"; id: string; name: string; input: unknown }
  | {
      type: "tool_result";
      id: string;
      name: string;
      content: string;
      isError: boolean;
      /** The permission check refused the call. */
      refused: boolean;
      writtenPath?: string;
      memoryFile?: string;
    }
  /** Recalled memories attached to the next request (absolute paths). */
  | { type: "memory_surfaced"; files: string[] }
  /** A before-model hook saved memories (relative to the memory dir). */
  | { type: "memory_saved"; files: string[] }
  | { type: "notice"; text: string }
  | { type: "usage"; usage: Usage; total: Usage }
  | { type: "error"; error: Error }
  | { type: "turn_end"; reason: TurnEndReason; text: string; messages: Message[]; turns: number };

const DEFAULT_MAX_TURNS = 20;
const DEFAULT_MAX_TOKENS = 8192;

function textOf(blocks: readonly ContentBlock[]): string {
  return blocks
    .filter((b) => b.type === "text")
    .map((b) => (b as { text: string }).text)
    .join("");
}

function abortError(): MemdirError {
  return new MemdirError("aborted", "agent: the turn was aborted");
}

/** Calls the model, streaming text deltas when the client can. */
async function* callModel(
  client: ModelClient,
  request: ModelRequest,
): AsyncGenerator<LoopEvent, ModelResponse> {
  if (!client.stream) return await client.complete(request);
  let response: ModelResponse | null = null;
  for await (const event of client.stream(request)) {
    if (event.type === "text_delta") yield { type: "text_delta", text: event.text };
    else if (event.type === "done") response = event.response;
  }
  if (response === null)
    throw new MemdirError("model", `agent: ${client.name} ended its stream without a response`);
  return response;
}

/** Runs one tool call: schema, permission, handler. Every failure becomes a readable error result. */
async function runTool(
  call: ToolUseBlock,
  options: Pick<QueryLoopOptions, "tools" | "permissions" | "toolContext">,
): Promise<ToolResult & { refused: boolean }> {
  const tool = options.tools.find((t) => t.name === call.name);
  if (!tool) {
    const known = options.tools.map((t) => t.name).join(", ");
    return { content: `Unknown tool ${call.name}; available tools: ${known}`, isError: true, refused: false };
  }
  const parsed = tool.inputSchema.safeParse(call.input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ");
    return { content: `${tool.name}: invalid input: ${issues}`, isError: true, refused: false };
  }
  try {
    const decision = await options.permissions(tool.name, parsed.data, options.toolContext);
    if (!decision.allow) return { content: decision.message, isError: true, refused: true };
    const result = await tool.handler(parsed.data, options.toolContext);
    return { ...result, refused: false };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { content: `${tool.name} failed: ${message}`, isError: true, refused: false };
  }
}

/**
 * What the steps of one turn share. `messages` is replaced (never mutated) as messages are added,
 * so an array handed out in an event stays as it was.
 */
interface TurnState {
  messages: Message[];
  /** Model calls made so far in this turn. */
  turns: number;
  /** The text of the latest assistant message. */
  finalText: string;
  total: Usage;
  /** The system prompt and tool definitions, the same in every request of the turn. */
  system: string | undefined;
  tools: ToolDefinition[] | undefined;
  newId: () => string;
  timestamp: () => string;
}

function turnEnd(state: TurnState, reason: TurnEndReason): LoopEvent {
  return { type: "turn_end", reason, text: state.finalText, messages: state.messages, turns: state.turns };
}

/** A new message of this turn: a fresh id, the current time. */
function newMessage(state: TurnState, role: Message["role"], content: ContentBlock[]): Message {
  return { id: state.newId(), role, content, timestamp: state.timestamp() };
}

function addMessage(state: TurnState, message: Message): LoopEvent {
  state.messages = [...state.messages, message];
  return { type: "message", message };
}

/**
 * (1) The user context goes first, so the index is in the very first request. A context already
 * in the conversation (earlier turns, a resumed session) is moved first, not repeated; only a new
 * or changed one is reported (and so written to the transcript).
 */
function* placeUserContext(state: TurnState, userContext: string | null | undefined): Generator<LoopEvent> {
  if (!userContext) return;
  const existing = state.messages.find((m) => m.id === USER_CONTEXT_MESSAGE_ID);
  state.messages = prependUserContext(state.messages, userContext);
  if (!existing || existing.content !== userContext) {
    const added = state.messages[0];
    added.timestamp ??= state.timestamp();
    yield { type: "message", message: added };
  }
}

/** The explicit "remember …" rule (docs/design.md#explicit-remember) and other before-model hooks run first, awaited. */
async function* runBeforeModelHooks(
  hooks: HookRegistry,
  state: TurnState,
  userMessage: Message,
  memory: LoopMemory | null,
  signal: AbortSignal | undefined,
): AsyncGenerator<LoopEvent> {
  const result = await hooks.runBeforeModel({
    messages: state.messages,
    userMessage,
    memoryDir: memory?.memoryDir ?? null,
    signal,
  });
  if (result.saved?.length) {
    yield { type: "memory_saved", files: result.saved };
    // Tell the model, so it refines the saved file instead of saving the statement again.
    yield addMessage(state, {
      id: state.newId(),
      role: "user",
      isMeta: true,
      timestamp: state.timestamp(),
      content: wrapSystemReminder(
        `memdir already saved the user's request to remember as ${result.saved.join(", ")} in ${memory?.memoryDir ?? "the memory directory"}, with its MEMORY.md line. Do not save it again; edit that file only to improve it.`,
      ),
    });
  }
  for (const text of result.notices ?? []) yield { type: "notice", text };
}

/** (3) One model call: usage counted, the assistant message added; returns the response. */
async function* modelRound(
  options: QueryLoopOptions,
  state: TurnState,
): AsyncGenerator<LoopEvent, ModelResponse> {
  state.turns += 1;
  const response: ModelResponse = yield* callModel(options.client, {
    model: options.model,
    system: state.system,
    messages: state.messages,
    tools: state.tools,
    maxTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
    signal: options.signal,
  });
  state.total.inputTokens += response.usage.inputTokens;
  state.total.outputTokens += response.usage.outputTokens;
  yield { type: "usage", usage: response.usage, total: { ...state.total } };

  const assistant = newMessage(state, "assistant", response.content);
  state.finalText = textOf(response.content);
  yield addMessage(state, assistant);
  yield { type: "assistant_message", message: assistant };
  return response;
}

/** (4) The turn ended normally: stop hooks run in the background, not awaited. */
function fireStopHooks(options: QueryLoopOptions, state: TurnState): void {
  if (!options.hooks || !(options.isMainAgent ?? true)) return;
  options.hooks.runStopHooks({
    messages: state.messages,
    memoryDir: options.memory?.memoryDir ?? null,
    toolContext: options.toolContext,
    isMainAgent: options.isMainAgent ?? true,
    notify: options.notify ?? (() => {}),
  });
}

/** Runs the round's tool calls in order and adds one message with every result. */
async function* runToolCalls(
  options: QueryLoopOptions,
  state: TurnState,
  calls: readonly ToolUseBlock[],
): AsyncGenerator<LoopEvent> {
  const results: ToolResultBlock[] = [];
  for (const call of calls) {
    yield { type: "tool_call", id: call.id, name: call.name, input: call.input };
    const result = await runTool(call, options);
    results.push({
      type: "tool_result",
      toolUseId: call.id,
      content: result.content,
      isError: result.isError,
    });
    yield {
      type: "tool_result",
      id: call.id,
      name: call.name,
      content: result.content,
      isError: result.isError === true,
      refused: result.refused,
      writtenPath: result.writtenPath,
      memoryFile: result.memoryFile,
    };
    if (options.signal?.aborted) break;
  }
  // Every tool_use needs its result, even when the user aborted halfway.
  for (const call of calls.slice(results.length))
    results.push({ type: "tool_result", toolUseId: call.id, content: "aborted by the user", isError: true });
  yield addMessage(state, newMessage(state, "user", results));
}

/** After a round's tool results: the recalled memories are attached only if already settled. */
function* attachSettledMemories(
  prefetch: ReturnType<typeof startRelevantMemoryPrefetch>,
  state: TurnState,
  toolContext: ToolContext,
  now: Clock,
): Generator<LoopEvent> {
  const memoryMessages = collectSettledMemories(prefetch, toolContext.readFileState, state.turns, now);
  if (memoryMessages.length === 0) return;
  for (const message of memoryMessages) {
    message.timestamp ??= state.timestamp();
    yield addMessage(state, message);
  }
  const files = memoryMessages.map(surfacedMemoryPath).filter((p): p is string => p !== null);
  yield { type: "memory_surfaced", files };
}

/**
 * The reference agent loop (docs/design.md#the-agent-loop): user context first, memory rules in the system prompt,
 * the relevance prefetch started before the first model call and never waited for, tools run
 * under a permission check, settled memories attached after each round of tool results, and the
 * stop hooks fired (not awaited) when the model ends its turn.
 *
 * @example
 * for await (const event of queryLoop({messages, tools: defaultTools, client, permissions, toolContext})) {
 *   if (event.type === "text_delta") process.stdout.write(event.text);
 * }
 */
export async function* queryLoop(options: QueryLoopOptions): AsyncGenerator<LoopEvent, void> {
  const now = options.now ?? Date.now;
  const memory = options.memory ?? null;
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const signal = options.signal;
  const system = [options.systemPrompt, memory?.rules]
    .filter((part) => part && part.trim() !== "")
    .join("\n\n");
  const tools = options.tools.map(toolDefinition);
  const state: TurnState = {
    messages: [...options.messages],
    turns: 0,
    finalText: "",
    total: { inputTokens: 0, outputTokens: 0 },
    system: system === "" ? undefined : system,
    tools: tools.length > 0 ? tools : undefined,
    newId: options.newId ?? randomUUID,
    timestamp: () => new Date(now()).toISOString(),
  };

  yield* placeUserContext(state, options.userContext);
  const userMessage = lastRealUserMessage(state.messages);
  let prefetch: ReturnType<typeof startRelevantMemoryPrefetch> | null = null;

  try {
    if (options.hooks && userMessage)
      yield* runBeforeModelHooks(options.hooks, state, userMessage, memory, signal);
    // (2) Start the prefetch before the first model call; it is disposed in `finally`.
    if (memory?.prefetch && userMessage) {
      prefetch = startRelevantMemoryPrefetch(state.messages, {
        ...memory.prefetch,
        signal: signal ?? memory.prefetch.signal,
        readFileState: memory.prefetch.readFileState ?? options.toolContext.readFileState,
        now: memory.prefetch.now ?? now,
      });
    }

    for (;;) {
      if (signal?.aborted) throw abortError();
      if (state.turns >= maxTurns) {
        yield { type: "notice", text: `agent: stopped after ${maxTurns} model calls in one turn` };
        yield turnEnd(state, "max_turns");
        return;
      }
      const response = yield* modelRound(options, state);
      const calls = response.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
      if (calls.length === 0) {
        fireStopHooks(options, state);
        yield turnEnd(state, response.stopReason === "max_tokens" ? "max_tokens" : "end_turn");
        return;
      }
      yield* runToolCalls(options, state, calls);
      if (prefetch) yield* attachSettledMemories(prefetch, state, options.toolContext, now);
    }
  } catch (error) {
    if (signal?.aborted) {
      yield turnEnd(state, "aborted");
      return;
    }
    const wrapped = error instanceof Error ? error : new Error(String(error));
    yield { type: "error", error: wrapped };
    yield turnEnd(state, "error");
  } finally {
    prefetch?.[Symbol.dispose]();
  }
}

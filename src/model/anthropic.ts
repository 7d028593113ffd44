import type Anthropic from "@anthropic-ai/sdk";
import type { ContentBlock, Message, ToolUseBlock } from "../types.ts";
import type {
  HttpModelClientOptions,
  ModelClient,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
  StopReason,
} from "./client.ts";
import { withJsonRepair } from "./json-repair.ts";
import { httpStatus, toModelError } from "./model-error.ts";

type MessageParam = Anthropic.MessageParam;
type ContentBlockParam = Anthropic.ContentBlockParam;
type MessageCreateParamsNonStreaming = Anthropic.MessageCreateParamsNonStreaming;

/** The agent's default Anthropic model (a current Sonnet id in `@anthropic-ai/sdk` 1.14's `Model` type). */
export const DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-5-5";
/** The default model for side queries (memory selection): the fast Haiku. */
export const DEFAULT_ANTHROPIC_SELECTOR_MODEL = "claude-haiku-5-5";

export interface AnthropicClientOptions extends HttpModelClientOptions {
  /** Defaults to `https://api.anthropic.com`. */
  baseURL?: string;
  /**
   * The SDK sends `anthropic-version: 2026-10-21` and `Authorization: Bearer`; a proxy that speaks an
   * older version may need `{ "anthropic-version": "2023-06-01", "x-api-key": KEY }`.
   */
  headers?: Record<string, string>;
}

/**
 * A {@link ModelClient} for the Anthropic Messages API (`@anthropic-ai/sdk`, loaded on first use).
 * Tools, JSON-schema output (`output_config.format`, with one repair retry), streaming, abort.
 * Never sends `temperature`/`top_p`/`top_k`: the API version this SDK speaks rejects them.
 *
 * @example
 * const client = createAnthropicClient({ apiKey: process.env.ANTHROPIC_API_KEY! });
 * const reply = await client.complete({ messages: [{ id: "1", role: "user", content: "Hi" }], maxTokens: 200 });
 */
export function createAnthropicClient(options: AnthropicClientOptions): ModelClient {
  const model = options.model ?? DEFAULT_ANTHROPIC_MODEL;
  let sdk: Promise<Anthropic> | null = null;
  // Lazy: the SDK is only imported when this client is actually used (offline runs never load it).
  const load = () => {
    sdk ??= import("@anthropic-ai/sdk").then(
      ({ default: AnthropicSDK }) =>
        new AnthropicSDK({
          apiKey: options.apiKey,
          baseURL: options.baseURL ?? "https://api.anthropic.com",
          maxRetries: options.maxRetries ?? 2,
          defaultHeaders: options.headers,
          fetch: options.fetch,
          timeout: options.timeoutMs,
        }),
    );
    return sdk;
  };
  const name = `anthropic:${model}`;
  // Proxies for older API versions reject `output_config`; then JSON comes through a forced tool call.
  let jsonVia: JsonVia = "output_config";

  const client: ModelClient = {
    name,
    async complete(request) {
      const sdkClient = await load();
      for (;;) {
        const jsonTool =
          request.jsonSchema && jsonVia === "tool" ? jsonToolName(request.jsonSchema.name) : null;
        try {
          const message = await sdkClient.messages.create(toAnthropicParams(request, model, jsonVia), {
            signal: request.signal,
          });
          return fromAnthropicMessage(message, jsonTool);
        } catch (error) {
          if (request.jsonSchema && jsonVia === "output_config" && rejectsOutputConfig(error)) {
            jsonVia = "tool";
            continue;
          }
          throw toModelError("anthropic", error, request.signal);
        }
      }
    },
    async *stream(request) {
      const sdkClient = await load();
      try {
        const events = await sdkClient.messages.create(
          { ...toAnthropicParams(request, model), stream: true },
          { signal: request.signal },
        );
        yield* accumulateStream(events);
      } catch (error) {
        throw toModelError("anthropic", error, request.signal);
      }
    },
  };
  return withJsonRepair(client);
}

/** How JSON output is asked for: natively, or as the input of one forced tool call. */
type JsonVia = "output_config" | "tool";

function jsonToolName(schemaName: string): string {
  return schemaName.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64) || "json_output";
}

/** A 400 that names `output_config`: the endpoint (often a proxy on an older API version) lacks it. */
function rejectsOutputConfig(error: unknown): boolean {
  return httpStatus(error) === 400 && /output_config|output_format/i.test(String((error as Error).message));
}

/** Neutral request → Messages API params. Exported for tests of the mapping. */
export function toAnthropicParams(
  request: ModelRequest,
  defaultModel: string,
  jsonVia: JsonVia = "output_config",
): MessageCreateParamsNonStreaming {
  const params: MessageCreateParamsNonStreaming = {
    model: request.model ?? defaultModel,
    max_tokens: request.maxTokens,
    messages: toAnthropicMessages(request.messages),
  };
  if (request.system) params.system = request.system;
  if (request.tools?.length) {
    params.tools = request.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.inputSchema as Anthropic.Tool.InputSchema,
    }));
  }
  if (request.jsonSchema && jsonVia === "output_config") {
    params.output_config = { format: { type: "json_schema", schema: request.jsonSchema.schema } };
  } else if (request.jsonSchema) {
    const name = jsonToolName(request.jsonSchema.name);
    params.tools = [
      ...(params.tools ?? []),
      {
        name,
        description: "Give your answer as this tool's input.",
        input_schema: request.jsonSchema.schema as Anthropic.Tool.InputSchema,
      },
    ];
    params.tool_choice = { type: "tool", name };
  }
  return params;
}

/**
 * Neutral messages → Anthropic messages: meta messages are user messages, consecutive messages
 * of one role are merged (the API wants alternating turns), empty text is dropped (the API
 * rejects empty text blocks), and in a user turn tool results come first (the API requires them
 * to lead the turn that answers a tool call; surfaced memories often follow them).
 */
export function toAnthropicMessages(messages: Message[]): MessageParam[] {
  const result: { role: "user" | "assistant"; content: ContentBlockParam[] }[] = [];
  for (const message of messages) {
    const role = message.isMeta ? "user" : message.role;
    const blocks = toBlocks(message.content);
    if (blocks.length === 0) continue;
    const last = result.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else result.push({ role, content: blocks });
  }
  for (const turn of result) {
    if (turn.role === "user") {
      turn.content = [
        ...turn.content.filter((b) => b.type === "tool_result"),
        ...turn.content.filter((b) => b.type !== "tool_result"),
      ];
    }
  }
  return result;
}

function toBlocks(content: string | ContentBlock[]): ContentBlockParam[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  const blocks: ContentBlockParam[] = [];
  for (const block of content) {
    if (block.type === "text") {
      if (block.text !== "") blocks.push({ type: "text", text: block.text });
    } else if (block.type === "tool_use") {
      blocks.push({ type: "tool_use", id: block.id, name: block.name, input: block.input ?? {} });
    } else {
      blocks.push({
        type: "tool_result",
        tool_use_id: block.toolUseId,
        content: block.content,
        ...(block.isError ? { is_error: true } : {}),
      });
    }
  }
  return blocks;
}

function stopReasonOf(reason: string | null | undefined): StopReason {
  switch (reason) {
    case "end_turn":
    case "tool_use":
    case "max_tokens":
    case "stop_sequence":
    case "refusal":
      return reason;
    default:
      return "other";
  }
}

/** SDK message → neutral response; a call of `jsonTool` (the forced JSON tool) becomes the JSON text. */
function fromAnthropicMessage(message: Anthropic.Message, jsonTool: string | null): ModelResponse {
  const content: ContentBlock[] = [];
  let answeredByTool = false;
  for (const block of message.content) {
    if (block.type === "text" && jsonTool === null) content.push({ type: "text", text: block.text });
    else if (block.type === "tool_use" && block.name === jsonTool && !answeredByTool) {
      answeredByTool = true;
      content.push({ type: "text", text: JSON.stringify(block.input) });
    } else if (block.type === "tool_use") {
      content.push({ type: "tool_use", id: block.id, name: block.name, input: block.input });
    }
  }
  return {
    content,
    stopReason: answeredByTool ? "end_turn" : stopReasonOf(message.stop_reason),
    usage: { inputTokens: message.usage.input_tokens ?? 0, outputTokens: message.usage.output_tokens ?? 0 },
    model: message.model,
  };
}

type StreamBlock =
  | { kind: "text"; text: string }
  | { kind: "tool_use"; id: string; name: string; json: string };

/** Folds raw SSE events into text deltas, finished tool calls and the final response. */
async function* accumulateStream(
  events: AsyncIterable<Anthropic.RawMessageStreamEvent>,
): AsyncGenerator<ModelStreamEvent> {
  const blocks: StreamBlock[] = [];
  let stopReason: string | null = null;
  let model: string | undefined;
  const usage = { inputTokens: 0, outputTokens: 0 };
  for await (const event of events) {
    if (event.type === "message_start") {
      model = event.message.model;
      usage.inputTokens = event.message.usage.input_tokens ?? 0;
      usage.outputTokens = event.message.usage.output_tokens ?? 0;
    } else if (event.type === "content_block_start") {
      const block = event.content_block;
      if (block.type === "text") blocks[event.index] = { kind: "text", text: block.text };
      else if (block.type === "tool_use")
        blocks[event.index] = { kind: "tool_use", id: block.id, name: block.name, json: "" };
    } else if (event.type === "content_block_delta") {
      const block = blocks[event.index];
      if (event.delta.type === "text_delta" && block?.kind === "text") {
        block.text += event.delta.text;
        yield { type: "text_delta", text: event.delta.text };
      } else if (event.delta.type === "input_json_delta" && block?.kind === "tool_use") {
        block.json += event.delta.partial_json;
      }
    } else if (event.type === "content_block_stop") {
      const block = blocks[event.index];
      if (block?.kind === "tool_use") yield { type: "tool_use", block: toolUseOf(block) };
    } else if (event.type === "message_delta") {
      stopReason = event.delta.stop_reason ?? stopReason;
      usage.outputTokens = event.usage.output_tokens ?? usage.outputTokens;
    }
  }
  const content: ContentBlock[] = blocks
    .filter((block) => block !== undefined)
    .map((block) => (block.kind === "text" ? { type: "text" as const, text: block.text } : toolUseOf(block)));
  yield { type: "done", response: { content, stopReason: stopReasonOf(stopReason), usage, model } };
}

function toolUseOf(block: Extract<StreamBlock, { kind: "tool_use" }>): ToolUseBlock {
  let input: unknown = {};
  if (block.json.trim() !== "") {
    try {
      input = JSON.parse(block.json);
    } catch {
      input = block.json; // the tool's schema check will tell the model what was wrong
    }
  }
  return { type: "tool_use", id: block.id, name: block.name, input };
}

import type OpenAI from "openai";
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

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ChatParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;

/** The default OpenAI model, for the agent and for side queries. */
export const DEFAULT_OPENAI_MODEL = "gpt-4.1-mini";

const OPENAI_API = "https://api.openai.com/v1";

export interface OpenAIClientOptions extends HttpModelClientOptions {
  /** Local servers usually ignore it; any non-empty value works there. */
  apiKey: string;
  /** Defaults to `https://api.openai.com/v1`; e.g. `http://localhost:11434/v1` for Ollama. */
  baseURL?: string;
}

/** How JSON output is asked for; a server that rejects one mode is asked the next way from then on. */
type JsonMode = "json_schema" | "json_object" | "prompt";

/**
 * A {@link ModelClient} over OpenAI-compatible chat completions (`openai` SDK, loaded on first use):
 * OpenAI itself and local servers (Ollama, vLLM, llama.cpp server). Tools via function calling,
 * JSON-schema output with a fallback for servers that reject `json_schema` (→ `json_object` with the
 * schema in the system prompt → prompt only), one repair retry for malformed JSON, streaming, abort.
 *
 * @example
 * const local = createOpenAIClient({ apiKey: "ollama", baseURL: "http://localhost:11434/v1", model: "qwen3:8b" });
 */
export function createOpenAIClient(options: OpenAIClientOptions): ModelClient {
  const model = options.model ?? DEFAULT_OPENAI_MODEL;
  const baseURL = options.baseURL ?? OPENAI_API;
  // OpenAI's newer models want max_completion_tokens; many local servers only know max_tokens.
  const tokenField = new URL(baseURL).hostname === "api.openai.com" ? "max_completion_tokens" : "max_tokens";
  let jsonMode: JsonMode = "json_schema";
  let sdk: Promise<OpenAI> | null = null;
  const load = () => {
    sdk ??= import("openai").then(
      ({ default: OpenAISDK }) =>
        new OpenAISDK({
          apiKey: options.apiKey,
          baseURL,
          maxRetries: options.maxRetries ?? 2,
          defaultHeaders: options.headers,
          fetch: options.fetch,
          timeout: options.timeoutMs,
        }),
    );
    return sdk;
  };

  /** Runs `send` with the current JSON mode, stepping down once per rejection of `response_format`. */
  async function withJsonFallback<T>(
    request: ModelRequest,
    send: (params: ChatParams) => Promise<T>,
  ): Promise<T> {
    for (;;) {
      try {
        return await send(toOpenAIParams(request, model, tokenField, jsonMode));
      } catch (error) {
        if (!request.jsonSchema || jsonMode === "prompt" || !rejectsResponseFormat(error)) {
          throw toModelError("openai", error, request.signal);
        }
        jsonMode = jsonMode === "json_schema" ? "json_object" : "prompt";
      }
    }
  }

  const client: ModelClient = {
    name: `openai:${model}`,
    async complete(request) {
      const sdkClient = await load();
      const completion = await withJsonFallback(request, (params) =>
        sdkClient.chat.completions.create(params, { signal: request.signal }),
      );
      return fromCompletion(completion);
    },
    async *stream(request) {
      const sdkClient = await load();
      const chunks = await withJsonFallback(request, (params) =>
        sdkClient.chat.completions.create(
          { ...params, stream: true, stream_options: { include_usage: true } },
          { signal: request.signal },
        ),
      );
      try {
        yield* accumulateChunks(chunks);
      } catch (error) {
        throw toModelError("openai", error, request.signal);
      }
    },
  };
  return withJsonRepair(client);
}

/** A 400 that complains about `response_format` / `json_schema`: the server lacks that output mode. */
function rejectsResponseFormat(error: unknown): boolean {
  if (httpStatus(error) !== 400 && httpStatus(error) !== 422) return false;
  const text = `${(error as Error).message ?? ""} ${JSON.stringify((error as { error?: unknown }).error ?? "")}`;
  return /response_format|json_schema|json_object/i.test(text);
}

/** Neutral request → chat-completions params in the given JSON mode. Exported for mapping tests. */
export function toOpenAIParams(
  request: ModelRequest,
  defaultModel: string,
  tokenField: "max_tokens" | "max_completion_tokens",
  jsonMode: JsonMode,
): ChatParams {
  let system = request.system ?? "";
  if (request.jsonSchema && jsonMode !== "json_schema") {
    system += `${system ? "\n\n" : ""}Reply with only a JSON value (no prose, no code fence) that matches this JSON schema:\n${JSON.stringify(request.jsonSchema.schema)}`;
  }
  const messages: ChatMessage[] = [];
  if (system) messages.push({ role: "system", content: system });
  messages.push(...toOpenAIMessages(request.messages));
  const params: ChatParams = { model: request.model ?? defaultModel, messages };
  params[tokenField] = request.maxTokens;
  if (request.tools?.length) {
    params.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    }));
  }
  if (request.jsonSchema && jsonMode === "json_schema") {
    const { name, schema } = request.jsonSchema;
    params.response_format = {
      type: "json_schema",
      json_schema: {
        name: name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64),
        schema,
        strict: isStrictCompatible(schema),
      },
    };
  } else if (request.jsonSchema && jsonMode === "json_object") {
    params.response_format = { type: "json_object" };
  }
  return params;
}

/**
 * OpenAI's strict mode needs every object closed (`additionalProperties: false`) with every
 * property required; send `strict` only for schemas that already are, so others are not rejected.
 */
function isStrictCompatible(schema: unknown): boolean {
  if (!schema || typeof schema !== "object") return true;
  if (Array.isArray(schema)) return schema.every(isStrictCompatible);
  const node = schema as Record<string, unknown>;
  if (node.type === "object") {
    const keys = Object.keys((node.properties as Record<string, unknown>) ?? {});
    const required = Array.isArray(node.required) ? node.required : [];
    if (node.additionalProperties !== false || !keys.every((key) => required.includes(key))) return false;
  }
  return Object.values(node).every(isStrictCompatible);
}

/**
 * Neutral messages → chat messages: tool results become `tool` messages right after the assistant
 * turn that called them; meta messages are user messages; consecutive user texts are merged, since
 * some local chat templates insist on alternating roles.
 */
export function toOpenAIMessages(messages: Message[]): ChatMessage[] {
  const result: ChatMessage[] = [];
  const pushUserText = (text: string) => {
    if (text === "") return;
    const last = result.at(-1);
    if (last?.role === "user" && typeof last.content === "string") last.content += `\n\n${text}`;
    else result.push({ role: "user", content: text });
  };
  for (const message of messages) {
    const blocks: ContentBlock[] =
      typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    const text = blocks
      .filter((b) => b.type === "text")
      .map((b) => b.text)
      .filter((t) => t !== "")
      .join("\n\n");
    if (message.role === "assistant" && !message.isMeta) {
      const calls = blocks.filter((b): b is ToolUseBlock => b.type === "tool_use");
      if (text === "" && calls.length === 0) continue;
      result.push({
        role: "assistant",
        content: text === "" ? null : text,
        ...(calls.length > 0
          ? {
              tool_calls: calls.map((call) => ({
                id: call.id,
                type: "function" as const,
                function: { name: call.name, arguments: JSON.stringify(call.input ?? {}) },
              })),
            }
          : {}),
      });
      continue;
    }
    for (const block of blocks) {
      if (block.type === "tool_result") {
        const content = block.isError ? `Error: ${block.content}` : block.content;
        result.push({ role: "tool", tool_call_id: block.toolUseId, content });
      }
    }
    pushUserText(text);
  }
  return result;
}

function stopReasonOf(reason: string | null | undefined): StopReason {
  if (reason === "stop") return "end_turn";
  if (reason === "tool_calls" || reason === "function_call") return "tool_use";
  if (reason === "length") return "max_tokens";
  if (reason === "content_filter") return "refusal";
  return "other";
}

function parseArguments(raw: string): unknown {
  if (raw.trim() === "") return {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw; // the tool's schema check will tell the model what was wrong
  }
}

function fromCompletion(completion: OpenAI.Chat.Completions.ChatCompletion): ModelResponse {
  const choice = completion.choices[0];
  const content: ContentBlock[] = [];
  if (choice?.message.content) content.push({ type: "text", text: choice.message.content });
  (choice?.message.tool_calls ?? []).forEach((call, index) => {
    if (call.type !== "function") return;
    content.push({
      type: "tool_use",
      id: call.id || `call_${index}`,
      name: call.function.name,
      input: parseArguments(call.function.arguments),
    });
  });
  return {
    content,
    stopReason: stopReasonOf(choice?.finish_reason),
    usage: {
      inputTokens: completion.usage?.prompt_tokens ?? 0,
      outputTokens: completion.usage?.completion_tokens ?? 0,
    },
    model: completion.model,
  };
}

/** Folds `data:` chunks into text deltas, tool calls (arguments arrive in pieces) and the final response. */
async function* accumulateChunks(
  chunks: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>,
): AsyncGenerator<ModelStreamEvent> {
  let text = "";
  const calls: { id: string; name: string; args: string }[] = [];
  let finish: string | null = null;
  let model: string | undefined;
  const usage = { inputTokens: 0, outputTokens: 0 };
  for await (const chunk of chunks) {
    model ??= chunk.model;
    if (chunk.usage) {
      usage.inputTokens = chunk.usage.prompt_tokens ?? 0;
      usage.outputTokens = chunk.usage.completion_tokens ?? 0;
    }
    const choice = chunk.choices[0];
    if (!choice) continue;
    if (choice.delta.content) {
      text += choice.delta.content;
      yield { type: "text_delta", text: choice.delta.content };
    }
    for (const part of choice.delta.tool_calls ?? []) {
      calls[part.index] ??= { id: "", name: "", args: "" };
      const call = calls[part.index]!;
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name += part.function.name;
      if (part.function?.arguments) call.args += part.function.arguments;
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  const content: ContentBlock[] = text ? [{ type: "text", text }] : [];
  for (const [index, call] of calls.entries()) {
    if (!call) continue;
    const block: ToolUseBlock = {
      type: "tool_use",
      id: call.id || `call_${index}`,
      name: call.name,
      input: parseArguments(call.args),
    };
    content.push(block);
    yield { type: "tool_use", block };
  }
  yield { type: "done", response: { content, stopReason: stopReasonOf(finish), usage, model } };
}

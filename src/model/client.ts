import type { ContentBlock, Message, ToolUseBlock } from "../types.ts";

/** A tool the model may call: name, description and a JSON schema for its input. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ModelRequest {
  /** Model id; clients fall back to their configured default. */
  model?: string;
  system?: string;
  messages: Message[];
  tools?: ToolDefinition[];
  maxTokens: number;
  /**
   * Ask for JSON matching this schema; the reply's text is the JSON. With `validate`, a reply that
   * is not valid JSON or that `validate` rejects (it returns an error message) is sent back to the
   * model once for repair (see `model/json-repair.ts`).
   */
  jsonSchema?: {
    name: string;
    schema: Record<string, unknown>;
    validate?: (value: unknown) => string | null;
  };
  signal?: AbortSignal;
}

export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "refusal" | "other";

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface ModelResponse {
  content: ContentBlock[];
  stopReason: StopReason;
  usage: Usage;
  model?: string;
}

/** Streaming events; the last one is always `done` with the full response. */
export type ModelStreamEvent =
  | { type: "text_delta"; text: string }
  /** A tool call whose input has fully arrived (OpenAI streams split arguments across chunks). */
  | { type: "tool_use"; block: ToolUseBlock }
  | { type: "done"; response: ModelResponse };

/**
 * Our neutral model interface. `model/anthropic.ts` and `model/openai.ts` implement it;
 * tests and users may implement it directly.
 */
export interface ModelClient {
  /** A short name for logs and `--explain` (e.g. `anthropic:claude-sonnet-4-5`). */
  readonly name: string;
  complete(request: ModelRequest): Promise<ModelResponse>;
  stream?(request: ModelRequest): AsyncIterable<ModelStreamEvent>;
}

/** Options every HTTP model client takes (Anthropic, OpenAI-compatible). */
export interface HttpModelClientOptions {
  apiKey: string;
  /** The service's base URL; each client documents its default. */
  baseURL?: string;
  /** Default model for requests that name none. */
  model?: string;
  /** Retries for 408/409/429/5xx (and Anthropic's 529), honouring `retry-after-ms` / `retry-after`. Default 2. */
  maxRetries?: number;
  /** Extra headers on every request, overriding the SDK's. */
  headers?: Record<string, string>;
  /** Injected fetch (tests, proxies). */
  fetch?: typeof fetch;
  /** Per-request timeout in ms (the SDKs default to 10 minutes). */
  timeoutMs?: number;
}

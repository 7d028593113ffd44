/**
 * `memdir/model` — what a `ModelClient` (a root export) sends and gets back, the Anthropic and
 * OpenAI-compatible clients (each loads its vendor SDK on its first request, never at import),
 * the client chosen from configuration, and one-shot structured side queries.
 *
 * @example
 * import { createModelClientFromConfig, sideQuery } from "memdir/model";
 */

export { type AnthropicClientOptions, createAnthropicClient } from "../model/anthropic.ts";
export type {
  HttpModelClientOptions,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
  StopReason,
  ToolDefinition,
  Usage,
} from "../model/client.ts";
export {
  createModelClientFromConfig,
  defaultModelFor,
  type ModelClientFactoryOptions,
  requireModel,
} from "../model/factory.ts";
export { withJsonRepair } from "../model/json-repair.ts";
export { createOpenAIClient, type OpenAIClientOptions } from "../model/openai.ts";
export {
  type SideQueryOptions,
  type SideQueryResult,
  sideQuery,
} from "../model/side-query.ts";
export type { SideQueryFailure } from "../model/side-query-failure.ts";
export {
  type ContentBlock,
  messageText,
  type TextBlock,
  type ToolResultBlock,
  type ToolUseBlock,
} from "../types.ts";

import type { ModelConfig } from "../config.ts";
import { MemdirError } from "../errors.ts";
import {
  createAnthropicClient,
  DEFAULT_ANTHROPIC_MODEL,
  DEFAULT_ANTHROPIC_SELECTOR_MODEL,
} from "./anthropic.ts";
import type { ModelClient } from "./client.ts";
import { createOpenAIClient, DEFAULT_OPENAI_MODEL } from "./openai.ts";

export interface ModelClientFactoryOptions {
  /** `agent` uses `MEMDIR_MODEL`; `selector` uses `MEMDIR_SELECTOR_MODEL` (side queries). Default `agent`. */
  purpose?: "agent" | "selector";
  fetch?: typeof fetch;
  maxRetries?: number;
  /** Extra HTTP headers on every request (e.g. an older `anthropic-version` for a proxy). */
  headers?: Record<string, string>;
  timeoutMs?: number;
}

// A local OpenAI-compatible server (Ollama, vLLM, llama.cpp) needs no key, but the SDK insists on one.
const LOCAL_SERVER_KEY = "memdir-local";

/** The model id a purpose gets when none is configured. */
export function defaultModelFor(provider: "anthropic" | "openai", purpose: "agent" | "selector"): string {
  if (provider === "openai") return DEFAULT_OPENAI_MODEL;
  return purpose === "selector" ? DEFAULT_ANTHROPIC_SELECTOR_MODEL : DEFAULT_ANTHROPIC_MODEL;
}

/**
 * The configured model client, or `null` when memdir is offline (no provider, or the provider's
 * key is missing). Vendor SDKs are not loaded here; each client imports its SDK on first use.
 *
 * @example
 * const client = createModelClientFromConfig(resolveModelConfig(process.env), { purpose: "selector" });
 * const selector = client ? createModelSelector({ client }) : createLexicalSelector();
 */
export function createModelClientFromConfig(
  modelConfig: ModelConfig,
  options: ModelClientFactoryOptions = {},
): ModelClient | null {
  const purpose = options.purpose ?? "agent";
  const { provider } = modelConfig;
  if (provider === null || missingSetting(modelConfig) !== null) return null;
  const configured =
    purpose === "selector" ? (modelConfig.selectorModel ?? modelConfig.model) : modelConfig.model;
  const common = {
    baseURL: modelConfig.baseURL,
    model: configured ?? defaultModelFor(provider, purpose),
    maxRetries: options.maxRetries,
    headers: options.headers,
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
  };
  if (provider === "anthropic") return createAnthropicClient({ ...common, apiKey: modelConfig.apiKey! });
  return createOpenAIClient({ ...common, apiKey: modelConfig.apiKey || LOCAL_SERVER_KEY });
}

/**
 * Like {@link createModelClientFromConfig}, for commands that cannot work offline: throws
 * `MemdirError("no-model")` whose message is one line naming what to set.
 */
export function requireModel(modelConfig: ModelConfig, options: ModelClientFactoryOptions = {}): ModelClient {
  const client = createModelClientFromConfig(modelConfig, options);
  if (client) return client;
  throw new MemdirError(
    "no-model",
    `no model configured: ${missingSetting(modelConfig) ?? "set ANTHROPIC_API_KEY"}`,
  );
}

/** What the user must set for `modelConfig` to name a usable model, or null when nothing is missing. */
function missingSetting(modelConfig: ModelConfig): string | null {
  if (modelConfig.unknownProvider !== undefined)
    return `the provider ${modelConfig.unknownProvider} is not one memdir knows: use anthropic or openai`;
  if (modelConfig.provider === null) {
    return "set ANTHROPIC_API_KEY (or OPENAI_API_KEY, or MEMDIR_PROVIDER=openai with OPENAI_BASE_URL for a local server)";
  }
  if (modelConfig.provider === "anthropic" && !modelConfig.apiKey) {
    return "set ANTHROPIC_API_KEY (MEMDIR_PROVIDER is anthropic)";
  }
  if (modelConfig.provider === "openai" && !modelConfig.apiKey && !modelConfig.baseURL) {
    return "set OPENAI_API_KEY, or OPENAI_BASE_URL for a local server (MEMDIR_PROVIDER is openai)";
  }
  return null;
}

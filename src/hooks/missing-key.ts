import type { ModelConfig } from "../config.ts";
import { COPILOT_HOOK_ENV } from "../hosts/copilot/hook-env.ts";

/**
 * Why a model memdir is configured for cannot be used in this hook, when the reason is a key the
 * host kept out of the hook's environment — or null. Copilot CLI strips `OPENAI_API_KEY` and
 * `OPENAI_BASE_URL` from the environment of the hooks it runs, so a provider set in memdir's
 * settings arrived without its key, and "no model configured" sent users looking in the wrong
 * place (docs/integrations.md#copilot-cli).
 *
 * @example
 * missingKeyReason({ provider: "openai", optIn: "memdirProvider in user settings", … }) // "memdir is configured for openai (…) but …"
 */
export function missingKeyReason(model: ModelConfig): string | null {
  if (model.optIn === null || model.provider === null) return null;
  if (model.provider === "anthropic" && model.apiKey) return null;
  if (model.provider === "openai" && (model.apiKey || model.baseURL)) return null;
  const wanted = model.provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY (or OPENAI_BASE_URL)";
  // The host that strips them (its hookEnvGap) is named as the example, without the registry.
  const gap = COPILOT_HOOK_ENV;
  return (
    `memdir is configured for ${model.provider} (${model.optIn}) but ${wanted} is not in this hook's ` +
    `environment: the host did not pass it to its hooks (${gap.agent} strips ${gap.strips.join(" and ")}); ` +
    `set it in the hook entry's "env" (${gap.shortName}: ${gap.envFile})`
  );
}

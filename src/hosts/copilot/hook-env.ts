import type { HookEnvGap } from "../shared/host.ts";

/**
 * Copilot CLI strips `OPENAI_API_KEY` and `OPENAI_BASE_URL` from the environment of the hooks it
 * runs (docs/integrations.md#copilot-cli); a hook entry's own `env` still reaches them. Its own
 * module: `memdir hook` names it without loading the registry.
 */
export const COPILOT_HOOK_ENV: HookEnvGap = {
  agent: "Copilot CLI",
  shortName: "Copilot",
  strips: ["OPENAI_API_KEY", "OPENAI_BASE_URL"],
  envFile: "~/.copilot/hooks/memdir.json",
};

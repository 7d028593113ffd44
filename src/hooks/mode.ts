import type { ResolvedConfig } from "../config.ts";

/**
 * What memdir does as a hook (docs/design.md#coexistence):
 * - `full`: the whole cycle — rules and index at session start, explicit "remember …", recall,
 *   extraction after each turn;
 * - `recall-only`: the host's own auto memory is on for the project and already gives the index,
 *   the rules, the saving of a "remember" and the extraction, so memdir adds recall alone;
 * - `off`: memdir's memory is off.
 */
export type HookMode = "full" | "recall-only" | "off";

export interface HookModeDecision {
  mode: HookMode;
  /** One line for stderr (`--explain`) and `memdir doctor`. */
  reason: string;
}

/**
 * The mode for a hook of `host` (`claude-code`, or `other`), from memdir's switches and the host's
 * memory for the project. Pure.
 *
 * @example
 * hookMode(config, "claude-code") // { mode: "recall-only", reason: "Claude Code's auto memory is on (…)…" }
 */
export function hookMode(config: ResolvedConfig, host: "claude-code" | "other"): HookModeDecision {
  if (!config.ownMemory.on)
    return { mode: "off", reason: `memdir's memory is off (${config.ownMemory.reason})` };
  if (host === "claude-code" && config.hostMemory.on)
    return {
      mode: "recall-only",
      reason:
        `recall only: Claude Code's own auto memory is on for this project (${config.hostMemory.reason}), ` +
        "so it gives the index, the rules, explicit saves and extraction; set " +
        "CLAUDE_CODE_DISABLE_AUTO_MEMORY=1 or autoMemoryEnabled: false for memdir's whole cycle",
    };
  const why =
    host === "claude-code"
      ? `Claude Code's own auto memory is off (${config.hostMemory.reason})`
      : "the host has no auto memory memdir knows of";
  return { mode: "full", reason: `whole cycle: ${why}` };
}

/**
 * `config` as a hook sees it: auto memory follows memdir's own switches only. The host's
 * (`CLAUDE_CODE_DISABLE_AUTO_MEMORY=1`, `autoMemoryEnabled: false`) pick the mode instead: a user
 * who turns Claude Code's memory off to keep only memdir gets memdir's whole cycle.
 */
export function hookConfig(config: ResolvedConfig): ResolvedConfig {
  return { ...config, autoMemory: config.ownMemory.on, autoMemoryOffReason: config.ownMemory.reason };
}

import type { ResolvedConfig } from "../config.ts";
import type { HooksStepAside } from "../hosts/shared/host.ts";

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
 * The mode for a hook of a host whose own auto memory makes memdir step aside (`stepAside`, the
 * host's `nativeMemory.hooksStepAside`; null for a host without one), from memdir's switches and
 * the host's memory for the project (`config.hostMemory`). Pure.
 *
 * @example
 * hookMode(config, CLAUDE_CODE_STEPS_ASIDE) // { mode: "recall-only", reason: "recall only: Claude Code's own auto memory is on (…)…" }
 */
export function hookMode(config: ResolvedConfig, stepAside: HooksStepAside | null): HookModeDecision {
  if (!config.ownMemory.on)
    return { mode: "off", reason: `memdir's memory is off (${config.ownMemory.reason})` };
  if (stepAside !== null && config.hostMemory.on)
    return { mode: "recall-only", reason: `recall only: ${stepAside.whileOn(config.hostMemory.reason)}` };
  const why =
    stepAside !== null
      ? stepAside.whenOff(config.hostMemory.reason)
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

import type { HooksStepAside } from "../shared/host.ts";

/**
 * How memdir's hooks step aside for Claude Code's own auto memory (docs/design.md#coexistence):
 * while it is on for the project (its switches are read with memdir's configuration,
 * `ResolvedConfig.hostMemory`) it gives the index, the rules, explicit saves and extraction, so
 * memdir adds recall alone. Its own module: `memdir hook` reads it without loading the registry.
 */
export const CLAUDE_CODE_STEPS_ASIDE: HooksStepAside = {
  whileOn: (reason) =>
    `Claude Code's own auto memory is on for this project (${reason}), ` +
    "so it gives the index, the rules, explicit saves and extraction; set " +
    "CLAUDE_CODE_DISABLE_AUTO_MEMORY=1 or autoMemoryEnabled: false for memdir's whole cycle",
  whenOff: (reason) => `Claude Code's own auto memory is off (${reason})`,
};

import type { ResolvedConfig } from "../../config.ts";
import { missingKeyReason } from "../../hooks/missing-key.ts";
import { HOSTS, hostNamed } from "../../hosts/registry.ts";
import type { SetupAgent } from "./agents.ts";

// What `memdir setup <agent>` ends with: what happens from now on in that agent, in plain words,
// decided from what the agent runs (its hooks, or only the MCP server) and the configuration
// memdir sees (docs/integrations.md#what-happens-from-now-on). Pure: the command hands in the
// resolved configuration.

/** The agent's name as its users know it. */
export const AGENT_NAMES = Object.fromEntries(HOSTS.map((host) => [host.name, host.displayName])) as Record<
  SetupAgent,
  string
>;

/**
 * Agents whose prompt hook memdir gets (recall and "remember …" on every prompt); opencode's
 * through memdir's plugin, which runs the same hook. Each host says (its `lifecycle`).
 */
const PROMPT_HOOK: ReadonlySet<SetupAgent> = new Set(
  HOSTS.filter((host) => host.lifecycle.everyPrompt).map((host) => host.name),
);
/** Agents whose end-of-turn hook memdir gets (extraction after a turn): opencode's plugin has none. */
const TURN_HOOK: ReadonlySet<SetupAgent> = new Set(
  HOSTS.filter((host) => host.lifecycle.afterEachTurn).map((host) => host.name),
);

/** The facts, also printed as `fromNowOn` by `--json`. */
export interface FromNowOn {
  /** `every-prompt`: a prompt hook recalls; `when-model-calls-memory_recall`: MCP only; `off`: memdir's memory is off. */
  recall: "every-prompt" | "when-model-calls-memory_recall" | "off";
  /**
   * "remember …" in a prompt: `offline` (saved by memdir's prompt hook, no model),
   * `agent-own-memory` (Claude Code's auto memory saves it), `when-model-calls-memory_save`, `off`.
   */
  remember: "offline" | "agent-own-memory" | "when-model-calls-memory_save" | "off";
  /**
   * Saving after each turn: `on` (a model is configured), `needs-model`, `agent-own-memory`
   * (Claude Code's auto memory extracts), `manual-mode` (memoryMode manual), `not-available` (no
   * end-of-turn hook in this agent), `off`.
   */
  afterEachTurn: "on" | "needs-model" | "agent-own-memory" | "manual-mode" | "not-available" | "off";
  /** Whether memdir is configured for a model it can use here (docs/integrations.md#model-use-in-hooks-is-opt-in). */
  modelConfigured: boolean;
  /** The agent's own memory still saves too (Qwen Code without `--recommended`). */
  agentMemoryAlsoSaves: boolean;
}

/** Whether memdir is configured for a model and has what it needs to call it. */
export function modelReady(config: ResolvedConfig): boolean {
  const { model } = config;
  return model.optIn !== null && model.provider !== null && missingKeyReason(model) === null;
}

/** The facts for `agent` with `config` (the configuration as the agent's hooks will see it). */
export function fromNowOn(agent: SetupAgent, config: ResolvedConfig, recommended: boolean): FromNowOn {
  const modelConfigured = modelReady(config);
  if (!config.ownMemory.on)
    return {
      recall: "off",
      remember: "off",
      afterEachTurn: "off",
      modelConfigured,
      agentMemoryAlsoSaves: false,
    };
  const promptHook = PROMPT_HOOK.has(agent);
  // The agent's own auto memory on where memdir's hooks step aside for it (Claude Code's): they
  // add recall only (docs/design.md#coexistence).
  const { nativeMemory } = hostNamed(agent);
  const claudeOwn = nativeMemory.hooksStepAside !== undefined && config.hostMemory.on;
  const afterEachTurn: FromNowOn["afterEachTurn"] = !TURN_HOOK.has(agent)
    ? "not-available"
    : claudeOwn
      ? "agent-own-memory"
      : config.memoryMode === "manual"
        ? "manual-mode"
        : modelConfigured
          ? "on"
          : "needs-model";
  return {
    recall: promptHook ? "every-prompt" : "when-model-calls-memory_recall",
    remember: !promptHook ? "when-model-calls-memory_save" : claudeOwn ? "agent-own-memory" : "offline",
    afterEachTurn,
    modelConfigured,
    agentMemoryAlsoSaves: nativeMemory.savesBesideMemdir === true && !recommended,
  };
}

const SELECTION_COST =
  "one small selection call per prompt (the memory descriptions and the prompt: roughly 1-3k input and under 100 output tokens)";
const EXTRACTION_COST =
  "one extraction run in the background per turn that added messages (the new messages and the list of memories: usually one model call, at most 5)";

/** Where a model is configured for this agent's hooks. */
function howToConfigure(agent: SetupAgent): string {
  const host = hostNamed(agent);
  const where = host.modelEnvWhere ?? `in the environment ${host.displayName} starts from`;
  const gap = host.hookEnvGap;
  const kept = gap
    ? ` (${gap.agent} keeps ${gap.strips.join(" and ")} out of hooks: set them in the hook entries' env in ${gap.envFile})`
    : "";
  return `set MEMDIR_PROVIDER (anthropic or openai) and MEMDIR_MODEL ${where}, with that provider's key (ANTHROPIC_API_KEY, or OPENAI_API_KEY / OPENAI_BASE_URL for a local server)${kept}`;
}

/** The lines setup ends with: what happens from now on, true for this agent and configuration. */
export function fromNowOnLines(agent: SetupAgent, facts: FromNowOn, config: ResolvedConfig): string[] {
  const name = AGENT_NAMES[agent];
  const mcpOnly = !TURN_HOOK.has(agent) && !PROMPT_HOOK.has(agent);
  const lines = [`From now on, in ${name}${mcpOnly ? " (memdir's MCP server only)" : ""}:`];
  if (facts.recall === "off") {
    lines.push(
      `  nothing: memdir's memory is off (${config.ownMemory.reason}); MEMDIR_DISABLE=0 or memdirEnabled: true turns it on`,
    );
    return lines;
  }
  const recallHow = facts.modelConfigured
    ? "picked by the configured model"
    : "lexical, offline, no model call";
  lines.push(
    facts.recall === "every-prompt"
      ? `  recall on every prompt: yes (${recallHow})`
      : `  recall on every prompt: no; memories are recalled when the model calls memory_recall (${recallHow})`,
  );
  if (facts.remember === "offline") lines.push('  saving "remember …": yes, offline, the moment you send it');
  else if (facts.remember === "agent-own-memory")
    lines.push(`  saving "remember …": by ${name}'s own auto memory, not memdir`);
  else lines.push(`  saving "remember …": only when the model calls memory_save`);
  const turn = "  automatic saving after each turn:";
  switch (facts.afterEachTurn) {
    case "on":
      lines.push(
        `${turn} yes, with ${config.model.provider} (${config.model.optIn})` +
          (config.memoryMode === "review" ? ", as proposals you review with `memdir inbox`" : "") +
          `; it costs ${EXTRACTION_COST}` +
          (facts.recall === "every-prompt" ? `, and ${SELECTION_COST}` : ""),
      );
      break;
    case "needs-model":
      lines.push(
        `${turn} no: no model is configured. To turn it on, ${howToConfigure(agent)}. It then costs ${EXTRACTION_COST}` +
          (facts.recall === "every-prompt" ? `, and ${SELECTION_COST}` : "") +
          ".",
      );
      break;
    case "agent-own-memory":
      lines.push(
        `${turn} by ${name}'s own auto memory, not memdir. \`memdir setup ${agent} --recommended\` turns it off and gives memdir the whole cycle`,
      );
      break;
    case "manual-mode":
      lines.push(`${turn} no: memoryMode is manual (only what you ask for is saved)`);
      break;
    case "not-available":
      lines.push(`${turn} no: ${name} gives memdir no way to act after a turn`);
      break;
  }
  if (facts.agentMemoryAlsoSaves)
    lines.push(
      `  ${name}'s managed auto memory saves as well; \`memdir setup ${agent} --recommended\` turns it off so the two do not save the same things`,
    );
  return lines;
}

import os from "node:os";
import { findProjectRoot } from "../../../memdir/location/paths.ts";
import { SETUP_AGENTS, type SetupAgent, SetupUsageError, setupEdits } from "../../setup/agents.ts";
import { describeChange, planEdits, writePlanned } from "../../setup/apply.ts";
import type { RegisterCommand } from "../../support/common.ts";
import { resolveFrom, usageError } from "../../support/common.ts";
import { printJson } from "../../support/output.ts";

interface SetupOptions {
  project?: boolean;
  cwd?: string;
  print?: boolean;
  remove?: boolean;
  json?: boolean;
  recommended?: boolean;
  command: string;
}

const MODEL_NOTE =
  "Hooks call no model unless memdir is configured for one: set MEMDIR_PROVIDER (anthropic or openai) and " +
  "MEMDIR_MODEL (or MEMDIR_SELECTOR_MODEL) in the agent's environment, with that provider's key. Then each " +
  "prompt costs one small selection call (the memory descriptions plus the prompt: roughly 1-3k input and " +
  "under 100 output tokens) and each finished turn that added messages one extraction run (the new " +
  "messages plus the memory list, more calls when it saves). Without it recall is lexical and free.";

const MCP_MODEL_NOTE =
  "The memory recall tool calls no model unless memdir is configured for one (MEMDIR_PROVIDER and " +
  "MEMDIR_MODEL in the server's environment, with that provider's key); without it recall is lexical and free.";

/**
 * `memdir setup <agent>`: writes memdir's hooks and MCP server entry into the agent's own config
 * files (docs/design.md#agent-setup; what each agent gets: docs/integrations.md).
 */
export const registerSetupCommand: RegisterCommand = (program, context) => {
  program
    .command("setup")
    .description(`wire memdir into an agent's config files (${SETUP_AGENTS.join(", ")})`)
    .argument("<agent>", SETUP_AGENTS.join(" | "))
    .option("--project", "write the repository's files instead of the user's")
    .option("--cwd <dir>", "the project (default: the current directory)")
    .option("--print", "show the change without writing anything")
    .option("--remove", "take memdir's entries out again")
    .option(
      "--recommended",
      "claude-code, qwen: also turn the agent's own auto memory off (Claude Code: autoMemoryEnabled: false; Qwen Code: memory.enableManagedAutoMemory: false)",
    )
    .option("--command <cmd>", "how the agent starts memdir", "memdir")
    .option("--json", "machine-readable output: {agent, scope, files: [{path, changed, backup}]}")
    .action(async (agentName: string, options: SetupOptions) => {
      if (!(SETUP_AGENTS as readonly string[]).includes(agentName))
        throw usageError(`memdir: setup: unknown agent "${agentName}" (one of ${SETUP_AGENTS.join(", ")})`);
      const agent = agentName as SetupAgent;
      if (options.recommended && agent !== "claude-code" && agent !== "qwen")
        throw usageError("memdir: setup: --recommended applies to claude-code and qwen only");
      const env = context.env;
      const scope = options.project ? "project" : "user";
      const cwd = resolveFrom(context, options.cwd ?? ".");
      let edits: ReturnType<typeof setupEdits>;
      try {
        edits = setupEdits({
          agent,
          scope,
          home: env.HOME || os.homedir(),
          projectRoot: findProjectRoot(cwd),
          claudeConfigDir: env.CLAUDE_CONFIG_DIR || undefined,
          codexHome: env.CODEX_HOME || undefined,
          xdgConfigHome: env.XDG_CONFIG_HOME || undefined,
          geminiCliHome: env.GEMINI_CLI_HOME || undefined,
          clineDir: env.CLINE_DIR || undefined,
          clineDataDir: env.CLINE_DATA_DIR || undefined,
          qwenHome: env.QWEN_HOME || undefined,
          copilotHome: env.COPILOT_HOME || undefined,
          command: options.command,
          remove: options.remove === true,
          recommended: options.recommended === true,
        });
      } catch (error) {
        if (error instanceof SetupUsageError) throw usageError(error.message);
        throw error;
      }
      const planned = await planEdits(edits, { checkWrites: !options.print });
      const backups = options.print ? new Map<string, string>() : await writePlanned(planned);
      if (options.json) {
        printJson(context.io, {
          agent,
          scope,
          files: planned.map((file) => ({
            path: file.path,
            changed: file.changed,
            backup: backups.get(file.path) ?? null,
          })),
        });
        return;
      }
      const out = context.io.stdout;
      for (const file of planned) {
        if (options.print) out(file.changed ? describeChange(file) : `unchanged ${file.path}\n`);
        else if (!file.changed) out(`unchanged ${file.path}\n`);
        else {
          const backup = backups.get(file.path);
          const through = file.target === file.path ? "" : ` (a link: wrote ${file.target})`;
          out(`changed   ${file.path}${through}${backup ? ` (backup: ${backup})` : " (new file)"}\n`);
        }
      }
      if (options.remove) return;
      if (agent === "claude-code") {
        out(
          options.recommended
            ? "Claude Code's own auto memory is off (autoMemoryEnabled: false) and memdir on (env MEMDIR_DISABLE=0 " +
                "in the same settings): memdir gives the whole memory cycle.\n"
            : "Recommended: `memdir setup claude-code --recommended` also turns Claude Code's own auto memory off " +
                "(autoMemoryEnabled: false), so memdir gives the whole cycle; while it is on, memdir only recalls.\n",
        );
      }
      if (agent === "qwen") {
        out(
          options.recommended
            ? "Qwen Code's managed auto memory is off (memory.enableManagedAutoMemory: false): memdir gives the whole memory cycle.\n"
            : "Recommended: `memdir setup qwen --recommended` also turns Qwen Code's managed auto memory off " +
                "(memory.enableManagedAutoMemory: false), so the two do not both save the same things.\n",
        );
      }
      if (agent === "cline" || agent === "opencode") {
        // MCP only: no hooks, so nothing about hooks or their model use (docs/integrations.md).
        out(
          `${agent} gets the MCP server only: memory goes through its tools (recall, save, context), nothing ` +
            "is recalled or saved unless the model calls them, and nothing is extracted after a turn.\n",
        );
        out(`${MCP_MODEL_NOTE}\n`);
        return;
      }
      out(`${MODEL_NOTE}\n`);
    });
};

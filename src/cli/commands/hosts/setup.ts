import os from "node:os";
import { resolveConfig } from "../../../config.ts";
import { findProjectRoot } from "../../../memdir/location/paths.ts";
import {
  agentFoldersFrom,
  SETUP_AGENTS,
  type SetupAgent,
  SetupUsageError,
  setupEdits,
} from "../../setup/agents.ts";
import { describeChange, planEdits, writePlanned } from "../../setup/apply.ts";
import { resolveSetupCommand, selfCommand } from "../../setup/command-resolve.ts";
import { fromNowOn, fromNowOnLines } from "../../setup/from-now-on.ts";
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
  command?: string;
}

/**
 * What a Codex user must know: hooks run only once trusted (setup trusts its own in user scope;
 * Codex reads trust from the user's config only), and the MCP server is required
 * (docs/integrations.md#codex-cli).
 */
function codexNote(scope: "user" | "project"): string {
  const trust =
    scope === "user"
      ? "Codex runs hooks only once trusted: memdir trusted the hooks it wrote ([hooks.state] in config.toml; " +
        "Codex's /hooks lists them). A hook you edit later needs trusting again in /hooks (memdir doctor says so)."
      : "Codex runs hooks only once trusted, and reads trust from your user config only: start `codex` in this " +
        "project, open /hooks and trust memdir's three hooks (`codex exec` skips untrusted hooks without a word).";
  return (
    `${trust} The MCP server is required = true, so memory_save is there from the first prompt; if memdir ` +
    "cannot start, Codex stops instead of running without it (set required = false in [mcp_servers.memdir] to prefer that)."
  );
}

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
    .option(
      "--command <cmd>",
      "how the agent starts memdir (default: memdir when the memdir on PATH is this one, else node and this memdir's bin/memdir.js)",
    )
    .option(
      "--json",
      "machine-readable output: {agent, scope, files: [{path, changed, backup}], command: {written, absolute, note}, fromNowOn}",
    )
    .action(async (agentName: string, options: SetupOptions) => {
      if (!(SETUP_AGENTS as readonly string[]).includes(agentName))
        throw usageError(`memdir: setup: unknown agent "${agentName}" (one of ${SETUP_AGENTS.join(", ")})`);
      const agent = agentName as SetupAgent;
      if (options.recommended && agent !== "claude-code" && agent !== "qwen")
        throw usageError("memdir: setup: --recommended applies to claude-code and qwen only");
      const env = context.env;
      const command = resolveSetupCommand({ requested: options.command, env, self: selfCommand() });
      const scope = options.project ? "project" : "user";
      const cwd = resolveFrom(context, options.cwd ?? ".");
      let edits: ReturnType<typeof setupEdits>;
      try {
        edits = setupEdits({
          agent,
          scope,
          home: env.HOME || os.homedir(),
          projectRoot: findProjectRoot(cwd),
          ...agentFoldersFrom(env),
          command: command.argv,
          commandLine: command.line,
          remove: options.remove === true,
          recommended: options.recommended === true,
        });
      } catch (error) {
        if (error instanceof SetupUsageError) throw usageError(error.message);
        throw error;
      }
      const planned = await planEdits(edits, {
        checkWrites: !options.print,
        remove: options.remove === true,
        recommended: options.recommended === true,
      });
      const backups = options.print ? new Map<string, string>() : await writePlanned(planned);
      // The configuration as the agent's hooks will see it, read after the write (so --recommended
      // counts), with Claude Code's settings "env" over this environment as Claude Code passes it.
      const home = env.HOME || os.homedir();
      const agentEnv = agent === "claude-code" ? { ...env, ...claudeSettingsEnv(planned) } : env;
      const config = resolveConfig({ env: agentEnv, home, cwd, projectRoot: findProjectRoot(cwd) });
      const facts =
        options.remove || options.print ? null : fromNowOn(agent, config, options.recommended === true);
      if (options.json) {
        printJson(context.io, {
          agent,
          scope,
          files: planned.map((file) => ({
            path: file.path,
            changed: file.changed,
            backup: backups.get(file.path) ?? null,
          })),
          ...(options.remove
            ? {}
            : {
                command: { written: command.line, absolute: command.absolute, note: command.note },
              }),
          ...(facts ? { fromNowOn: facts } : {}),
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
      if (command.note !== null) out(`note: ${command.note}\n`);
      if (facts === null) return;
      if (agent === "claude-code" && options.recommended)
        out(
          "Claude Code's own auto memory is off (autoMemoryEnabled: false) and memdir on (env MEMDIR_DISABLE=0).\n",
        );
      if (agent === "qwen" && options.recommended)
        out("Qwen Code's managed auto memory is off (memory.enableManagedAutoMemory: false).\n");
      if (agent === "codex") out(`${codexNote(scope)}\n`);
      if (agent === "opencode")
        // A plugin, not hook commands: it runs memdir's session-start and prompt hooks, no Stop.
        out(
          "opencode gets the MCP server and memdir's plugin: the rules and the index in every request, the " +
            "memories recalled for each prompt, and memory_save for the model.\n",
        );
      for (const line of fromNowOnLines(agent, facts, config)) out(`${line}\n`);
    });
};

/** The `env` of the Claude Code settings file setup just wrote: Claude Code gives it to every hook. */
function claudeSettingsEnv(planned: Array<{ path: string; after: string }>): Record<string, string> {
  const settings = planned.find((file) => file.path.endsWith("settings.json"));
  if (!settings) return {};
  try {
    const doc = JSON.parse(settings.after) as { env?: unknown };
    if (typeof doc.env !== "object" || doc.env === null) return {};
    return Object.fromEntries(
      Object.entries(doc.env).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
    );
  } catch {
    return {};
  }
}

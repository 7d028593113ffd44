import os from "node:os";
import { type ResolvedConfig, resolveConfig } from "../../../config.ts";
import { HOSTS, hostNamed } from "../../../hosts/registry.ts";
import type { Host } from "../../../hosts/shared/host.ts";
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

/** The hosts whose own memory `--recommended` turns off (each says how: `nativeMemory.recommendedWords`). */
const RECOMMENDED_HOSTS = HOSTS.filter((host) => host.nativeMemory.recommendedWords !== undefined);

/** `--recommended`'s help: "claude-code, qwen: also turn … off (Claude Code: autoMemoryEnabled: false; …)". */
function recommendedHelp(): string {
  const how = RECOMMENDED_HOSTS.map(
    (host) => `${host.displayName}: ${host.nativeMemory.recommendedWords?.settings}`,
  );
  return `${RECOMMENDED_HOSTS.map((host) => host.name).join(", ")}: also turn the agent's own auto memory off (${how.join("; ")})`;
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
    .option("--recommended", recommendedHelp())
    .option(
      "--command <cmd>",
      "how the agent starts memdir (default: memdir when the memdir on PATH is this one, else node and this memdir's bin/memdir.js)",
    )
    .option(
      "--json",
      "machine-readable output: {agent, scope, files: [{path, changed, backup}], command: {written, absolute, note}, fromNowOn}",
    )
    .action(async (agentName: string, options: SetupOptions) => {
      const { agent, host } = setupAgentNamed(agentName, options.recommended === true);
      const env = context.env;
      const scope = options.project ? "project" : "user";
      const command = resolveSetupCommand({ requested: options.command, env, self: selfCommand(), scope });
      const cwd = resolveFrom(context, options.cwd ?? ".");
      const edits = editsOrUsageError({
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
      const planned = await planEdits(edits, {
        checkWrites: !options.print,
        remove: options.remove === true,
        recommended: options.recommended === true,
      });
      const backups = options.print ? new Map<string, string>() : await writePlanned(planned);
      // The configuration as the agent's hooks will see it, read after the write (so --recommended
      // counts), with the "env" the agent's files give its hooks over this environment (Claude Code's settings).
      const home = env.HOME || os.homedir();
      const agentEnv = host.hookEnvWritten ? { ...env, ...host.hookEnvWritten(planned) } : env;
      const config = resolveConfig({ env: agentEnv, home, cwd, projectRoot: findProjectRoot(cwd) });
      const facts =
        options.remove || options.print ? null : fromNowOn(agent, config, options.recommended === true);
      if (options.json)
        printJson(context.io, setupJson({ agent, scope, planned, backups, command, facts, options }));
      else
        printSetupText(context.io.stdout, {
          agent,
          host,
          scope,
          planned,
          backups,
          command,
          facts,
          config,
          options,
        });
    });
};

/**
 * What users call the agents besides their setup names: the command each is started with, or its
 * package's name (`claude`, `gemini-cli`, `qwen-code`, `copilot-cli`).
 */
const AGENT_ALIASES: Record<string, SetupAgent> = {
  claude: "claude-code",
  "gemini-cli": "gemini",
  "qwen-code": "qwen",
  "copilot-cli": "copilot",
};

/** The agent `memdir setup` was asked for, and its host; a usage error for an unknown one. */
function setupAgentNamed(name: string, recommended: boolean): { agent: SetupAgent; host: Host } {
  const agentName = AGENT_ALIASES[name.toLowerCase()] ?? name;
  if (!(SETUP_AGENTS as readonly string[]).includes(agentName))
    throw usageError(`memdir: setup: unknown agent "${agentName}" (one of ${SETUP_AGENTS.join(", ")})`);
  const agent = agentName as SetupAgent;
  const host = hostNamed(agent);
  if (recommended && !RECOMMENDED_HOSTS.includes(host))
    throw usageError(
      `memdir: setup: --recommended applies to ${RECOMMENDED_HOSTS.map((known) => known.name).join(" and ")} only`,
    );
  return { agent, host };
}

/** The agent's edits; a request setup cannot carry out is a usage error. */
function editsOrUsageError(request: Parameters<typeof setupEdits>[0]): ReturnType<typeof setupEdits> {
  try {
    return setupEdits(request);
  } catch (error) {
    if (error instanceof SetupUsageError) throw usageError(error.message);
    throw error;
  }
}

/** What one setup did and what it wrote, as the facts the answer is made of. */
interface SetupOutcome {
  agent: SetupAgent;
  scope: "user" | "project";
  planned: Awaited<ReturnType<typeof planEdits>>;
  backups: ReadonlyMap<string, string>;
  command: ReturnType<typeof resolveSetupCommand>;
  facts: ReturnType<typeof fromNowOn> | null;
  options: SetupOptions;
}

/** `--json`'s answer. */
function setupJson(outcome: SetupOutcome): Record<string, unknown> {
  const { agent, scope, planned, backups, command, facts, options } = outcome;
  return {
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
  };
}

/** The answer in words: each file, then the command's note and what happens from now on. */
function printSetupText(
  out: (text: string) => void,
  outcome: SetupOutcome & { host: Host; config: ResolvedConfig },
): void {
  const { agent, host, scope, planned, backups, command, facts, config, options } = outcome;
  for (const file of planned) {
    if (options.print) out(file.changed ? describeChange(file) : `unchanged ${file.path}\n`);
    else if (!file.changed) out(`unchanged ${file.path}\n`);
    else if (file.remove) {
      const backup = backups.get(file.path);
      out(`removed   ${file.path}${backup ? ` (backup: ${backup})` : " (it held only memdir's entries)"}\n`);
    } else {
      const backup = backups.get(file.path);
      const through = file.target === file.path ? "" : ` (a link: wrote ${file.target})`;
      out(`changed   ${file.path}${through}${backup ? ` (backup: ${backup})` : " (new file)"}\n`);
    }
  }
  if (options.remove) return;
  if (command.note !== null) out(`note: ${command.note}\n`);
  if (facts === null) return;
  const recommendedDone = host.nativeMemory.recommendedWords?.done;
  if (options.recommended && recommendedDone) out(`${recommendedDone}\n`);
  if (host.setupNote) out(`${host.setupNote(scope)}\n`);
  for (const line of fromNowOnLines(agent, facts, config)) out(`${line}\n`);
}

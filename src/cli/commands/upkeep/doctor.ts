import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type HookMode, type HookModeDecision, hookMode } from "../../../hooks/mode.ts";
import { HOSTS } from "../../../hosts/registry.ts";
import type { AgentFolders, HostIssue } from "../../../hosts/shared/host.ts";
import { INDEX_FILE } from "../../../memdir/format/index-file.ts";
import { diagnoseMemoryDir, repairMemoryDir } from "../../../memdir/health/doctor.ts";
import { findStaleMemories } from "../../../memdir/health/stale.ts";
import type { MemoryLocation } from "../../../memdir/location/paths.ts";
import { findProjectRoot } from "../../../memdir/location/paths.ts";
import { unresolvedLinks } from "../../../memdir/scan/links.ts";
import { agentFoldersFrom } from "../../setup/agents.ts";
import {
  type AgentLocations,
  configuredCommands,
  type UnresolvedCommand,
  unresolvedCommands,
} from "../../setup/configured-commands.ts";
import {
  type CommandContext,
  type CommonOptions,
  type RegisterCommand,
  withCommonOptions,
} from "../../support/common.ts";
import { configFromOptions, locationFromOptions } from "../../support/location.ts";
import { printable, printJson } from "../../support/output.ts";
import { terminalProgress } from "../../support/progress.ts";

interface DoctorOptions extends CommonOptions {
  fix?: boolean;
  stale?: boolean;
  verbose?: boolean;
}

/**
 * `memdir doctor [--fix] [--verbose]`: lists problems (in the memory dir, and memdir's Codex hooks
 * that Codex will not run because they are not trusted as they are) (`--json`: `{issues: [{code, file, message}]}`, plus `notes` when there are any) and
 * exits 1 while any remain. `--fix` first repairs what is safe and then reports what is left.
 * `notes` (same shape) are information that never changes the exit code: `[[name]]` links to
 * no memory, which Claude Code calls fine (a memory worth writing later). The human output also
 * names the hook modes in one line (`--verbose`: a line per host with the reason).
 * `--stale` lists only the memories whose anchors vanished or changed (docs/design.md#stale-anchors),
 * with what changed (`--json`: `{stale: [{file, path, changes: [{path, symbol?, change, message}]}]}`),
 * and exits 1 when there is any.
 */
export const registerDoctorCommand: RegisterCommand = (program, context) => {
  withCommonOptions(
    program
      .command("doctor")
      .description("check the memory directory: index pointers, frontmatter, index limits, secrets")
      .option("--fix", "remove dead index lines and add missing ones from descriptions")
      .option("--stale", "list only memories whose anchors (project files, symbols) vanished or changed")
      .option("--verbose", "say why each hook mode applies"),
  ).action(async (options: DoctorOptions) => {
    const location = await locationFromOptions(options, context);
    if (options.stale) {
      await reportStale(location, options, context);
      return;
    }
    const exists = await fs.stat(location.memoryDir).then(
      (stat) => stat.isDirectory(),
      () => false,
    );
    const fixed = exists && options.fix ? await repairMemoryDir(location.memoryDir) : [];
    const issues = [
      ...(exists
        ? await diagnoseMemoryDir(location.memoryDir, { progress: terminalProgress(context, options) })
        : []),
      ...(await hostIssues({ home: context.env.HOME || os.homedir(), ...agentFoldersFrom(context.env) })),
    ];
    const notes = exists ? await unresolvedLinks(location.memoryDir) : [];
    const commands = unresolvedCommands(
      await configuredCommands(agentLocations(context.env, location.projectRoot, options.cwd)),
      context.env,
    );
    const allIssues = [...issues, ...commands.map(commandIssue)];
    if (allIssues.length > 0) context.setExitCode(1);
    if (options.json) {
      printJson(context.io, notes.length > 0 ? { issues: allIssues, notes } : { issues: allIssues });
      return;
    }
    for (const line of fixed) context.io.stdout(`fixed: ${line}\n`);
    for (const issue of allIssues) context.io.stdout(printable(`${issue.code}: ${issue.message}\n`));
    // Which part of the cycle `memdir hook …` gives (docs/design.md#coexistence): one short line,
    // the reasons with --verbose.
    const config = configFromOptions(options, context, location);
    const stepping = HOSTS.flatMap((host) =>
      host.nativeMemory.hooksStepAside
        ? [{ name: host.displayName, decision: hookMode(config, host.nativeMemory.hooksStepAside) }]
        : [],
    );
    const other = hookMode(config, null);
    if (options.verbose) {
      for (const { name, decision } of stepping) context.io.stdout(`as a ${name} hook: ${decision.reason}\n`);
      context.io.stdout(`as a hook of other agents: ${other.reason}\n`);
    } else context.io.stdout(`${hookModesLine(stepping, other.mode)}\n`);
    for (const note of notes) context.io.stdout(`note: ${note.message}\n`);
    context.io.stdout(
      !exists && issues.length === 0
        ? `no memory directory yet at ${location.memoryDir} (the first memory saved makes it)\n`
        : issues.length === 0
          ? `no issues in ${location.memoryDir}\n`
          : `${issues.length} issue${issues.length === 1 ? "" : "s"} in ${location.memoryDir}\n`,
    );
    if (commands.length > 0)
      context.io.stdout(
        `${commands.length} agent command${commands.length === 1 ? "" : "s"} that will not start memdir\n`,
      );
    // --fix repairs only the index's pointers: say that what is left is the user's to do.
    if (options.fix && allIssues.length > 0)
      context.io.stdout(
        `--fix repaired ${fixed.length === 0 ? "nothing" : `${fixed.length} thing${fixed.length === 1 ? "" : "s"}`}; ` +
          `what is listed above needs a hand edit (--fix only adds and removes ${INDEX_FILE} lines)\n`,
      );
  });
};

/** Where the agents' config files are, from the environment as setup reads it. */
function agentLocations(
  env: NodeJS.ProcessEnv,
  projectRoot: string | null,
  cwd: string | undefined,
): AgentLocations {
  return {
    home: env.HOME || os.homedir(),
    projectRoot: projectRoot ?? findProjectRoot(path.resolve(cwd ?? process.cwd())),
    ...agentFoldersFrom(env),
  };
}

/** An agent command that does not resolve, as a doctor issue (`file`: the agent's config file). */
function commandIssue(command: UnresolvedCommand): { code: "agent-command"; file: string; message: string } {
  return {
    code: "agent-command",
    file: command.file,
    message: `${command.file}: ${command.entry} (${command.agent}) runs "${command.command}", but ${command.problem}; fix: ${command.fix}`,
  };
}

const MODE_WORDS: Record<HookMode, string> = {
  full: "whole cycle",
  "recall-only": "recall only",
  off: "off",
};

/**
 * The hook modes in one line: "hooks: recall only for Claude Code, whole cycle for other agents (…)"
 * (`stepping`: the hosts whose own memory memdir steps aside for, each with its mode).
 */
function hookModesLine(
  stepping: ReadonlyArray<{ name: string; decision: HookModeDecision }>,
  other: HookMode,
): string {
  const modes = stepping.every(({ decision }) => decision.mode === other)
    ? `${MODE_WORDS[other]} for ${[...stepping.map(({ name }) => name), "other agents"].join(" and ")}`
    : [
        ...stepping.map(({ name, decision }) => `${MODE_WORDS[decision.mode]} for ${name}`),
        `${MODE_WORDS[other]} for other agents`,
      ].join(", ");
  return `hooks: ${modes} (why: memdir doctor --verbose)`;
}

async function reportStale(
  location: MemoryLocation,
  options: DoctorOptions,
  context: CommandContext,
): Promise<void> {
  const stale = await findStaleMemories(location.memoryDir, { projectRoot: location.projectRoot });
  if (stale.length > 0) context.setExitCode(1);
  if (options.json) {
    printJson(context.io, {
      stale: stale.map((memory) => ({
        file: memory.file,
        path: memory.path,
        changes: memory.changes.map(({ anchor, change, message }) => ({
          path: anchor.path,
          ...(anchor.symbol ? { symbol: anchor.symbol } : {}),
          change,
          message,
        })),
      })),
    });
    return;
  }
  for (const memory of stale) {
    context.io.stdout(printable(`${memory.file}\n`));
    for (const change of memory.changes)
      context.io.stdout(printable(`    ${change.change}: ${change.message}\n`));
  }
  context.io.stdout(
    stale.length === 0
      ? `no stale memories in ${location.memoryDir}\n`
      : `${stale.length} stale ${stale.length === 1 ? "memory" : "memories"} in ${location.memoryDir}\n`,
  );
}

/** What each host's own check finds (Codex: memdir hooks it would not run, docs/design.md#hosts). */
async function hostIssues(folders: AgentFolders & { home: string }): Promise<HostIssue[]> {
  const found: HostIssue[] = [];
  for (const host of HOSTS) if (host.doctor) found.push(...(await host.doctor(folders)));
  return found;
}

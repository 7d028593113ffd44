import { statSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import type { JsonObject } from "../../hosts/shared/json-config.ts";
import { isMemdirHandler } from "../../hosts/shared/memdir-hooks.ts";
import { scanToml, simpleTomlValue, TomlScanError } from "../../hosts/shared/toml-scan.ts";
import { SETUP_AGENTS, type SetupAgent, type SetupRequest, type SetupScope, setupEdits } from "./agents.ts";
import { findExecutable, interpreterProblem, splitCommandLine } from "./command-resolve.ts";

// `memdir doctor` reads back what setup (or the user) wrote into each agent's config — memdir's
// hooks and its MCP server entry — and checks that each command resolves as the agent will run it
// (docs/integrations.md#the-command-agents-run).

/** Where the agents' files are: the same inputs setup takes, without what to write. */
export type AgentLocations = Omit<
  SetupRequest,
  "agent" | "scope" | "command" | "commandLine" | "remove" | "recommended"
>;

/** One command an agent runs to start memdir. */
export interface ConfiguredCommand {
  agent: SetupAgent;
  scope: SetupScope;
  file: string;
  /** `hook UserPromptSubmit`, `MCP server`. */
  entry: string;
  /** The command as written (a hook's line; an MCP entry's words joined). */
  command: string;
  argv: string[];
}

/** A command that does not resolve, with why and what fixes it. */
export interface UnresolvedCommand extends ConfiguredCommand {
  problem: string;
  fix: string;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function hookCommands(doc: JsonObject): Array<{ entry: string; command: string }> {
  const found: Array<{ entry: string; command: string }> = [];
  if (!isObject(doc.hooks)) return found;
  for (const [event, entries] of Object.entries(doc.hooks)) {
    if (!Array.isArray(entries)) continue;
    for (const entry of entries) {
      if (!isObject(entry)) continue;
      const handlers = Array.isArray(entry.hooks) ? [entry, ...entry.hooks] : [entry];
      for (const handler of handlers) {
        // Recognised as setup recognises its own (memdir-hooks.ts), so a hook written with
        // another `--command` (`~/bin/md`, a typo) is checked too, not only one naming memdir.
        if (!isObject(handler) || !isMemdirHandler(handler)) continue;
        // Copilot CLI names its command `bash`.
        const command = typeof handler.command === "string" ? handler.command : handler.bash;
        if (typeof command === "string") found.push({ entry: `hook ${event}`, command });
      }
    }
  }
  return found;
}

function serverCommand(doc: JsonObject): string[] | null {
  for (const key of ["mcpServers", "mcp"]) {
    const servers = doc[key];
    if (!isObject(servers) || !isObject(servers.memdir)) continue;
    const { command, args } = servers.memdir;
    // opencode writes the whole command line as one array.
    if (Array.isArray(command) && command.every((word) => typeof word === "string"))
      return command as string[];
    if (typeof command === "string")
      return [command, ...(Array.isArray(args) ? args.filter((arg) => typeof arg === "string") : [])];
  }
  return null;
}

function tomlServerCommand(text: string): string[] | null {
  let statements: ReturnType<typeof scanToml>;
  try {
    statements = scanToml(text);
  } catch (error) {
    if (error instanceof TomlScanError) return null;
    throw error;
  }
  let inMemdir = false;
  let command: string | undefined;
  let args: string[] = [];
  for (const statement of statements) {
    if (statement.kind !== "key-value") {
      inMemdir =
        statement.kind === "table" &&
        statement.keys.length === 2 &&
        statement.keys[0] === "mcp_servers" &&
        statement.keys[1] === "memdir";
      continue;
    }
    if (!inMemdir || statement.keys.length !== 1) continue;
    const value = simpleTomlValue(text.slice(statement.valueStart, statement.valueEnd));
    if (statement.keys[0] === "command" && typeof value === "string") command = value;
    if (statement.keys[0] === "args" && Array.isArray(value)) args = value;
  }
  return command === undefined ? null : [command, ...args];
}

async function readOrNull(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, "utf8");
  } catch {
    return null;
  }
}

/** Every command memdir's entries in the known agents' config files run, user and project scope. */
export async function configuredCommands(locations: AgentLocations): Promise<ConfiguredCommand[]> {
  const found: ConfiguredCommand[] = [];
  const seen = new Set<string>();
  for (const agent of SETUP_AGENTS) {
    for (const scope of ["user", "project"] as const) {
      let files: string[];
      try {
        const request = { ...locations, agent, scope, command: ["memdir"], commandLine: "memdir" };
        files = setupEdits({ ...request, remove: false, recommended: false }).map((edit) => edit.path);
      } catch {
        continue; // an agent without that scope
      }
      for (const file of files) {
        if (seen.has(file)) continue;
        seen.add(file);
        const text = await readOrNull(file);
        if (text === null) continue;
        const add = (entry: string, command: string, argv: string[]) =>
          found.push({ agent, scope, file, entry, command, argv });
        if (file.endsWith(".toml")) {
          const argv = tomlServerCommand(text);
          if (argv) add("MCP server", argv.join(" "), argv);
          continue;
        }
        let doc: unknown;
        try {
          doc = JSON.parse(text);
        } catch {
          continue; // setup and the agent report a broken file themselves
        }
        if (!isObject(doc)) continue;
        for (const hook of hookCommands(doc)) add(hook.entry, hook.command, splitCommandLine(hook.command));
        const server = serverCommand(doc);
        if (server) add("MCP server", server.join(" "), server);
      }
    }
  }
  return found;
}

const NODE_NAME = /^node(\.exe)?$/;

/**
 * Why `argv` would not start memdir in an agent with `env`, or null when it resolves: its
 * executable is not on PATH (or not an executable file), or — for `node <script>` — the script is
 * gone. A word holding a variable (`${CLAUDE_PLUGIN_ROOT}`) is the agent's to expand and is not judged.
 */
export function commandProblem(argv: readonly string[], env: NodeJS.ProcessEnv): string | null {
  const [executable, script] = argv;
  if (executable === undefined || executable.includes("$")) return null;
  const found = findExecutable(executable, env);
  if (found === null)
    return executable.includes("/")
      ? `${executable} does not exist or is not executable`
      : `${executable} is not on PATH`;
  const interpreter = interpreterProblem(found, env);
  if (interpreter !== null) return interpreter;
  if (NODE_NAME.test(path.basename(executable)) && script !== undefined && !script.startsWith("-")) {
    if (script.includes("$")) return null;
    return fsExists(script) ? null : `${script} does not exist`;
  }
  return null;
}

function fsExists(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The configured commands that do not resolve, each with the setup command that writes one that does. */
export function unresolvedCommands(
  commands: ConfiguredCommand[],
  env: NodeJS.ProcessEnv,
): UnresolvedCommand[] {
  const unresolved: UnresolvedCommand[] = [];
  for (const command of commands) {
    const problem = commandProblem(command.argv, env);
    if (problem === null) continue;
    const setup = `memdir setup ${command.agent}${command.scope === "project" ? " --project" : ""}`;
    unresolved.push({
      ...command,
      problem,
      fix: `run \`${setup}\` (it writes node and memdir's bin/memdir.js when memdir is not on PATH), or put memdir on the PATH the agent gets`,
    });
  }
  return unresolved;
}

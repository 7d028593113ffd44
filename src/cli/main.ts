import fs from "node:fs";
import path from "node:path";
import { Command, CommanderError } from "commander";
import { MemdirError, systemErrorLine } from "../errors.ts";
import type { CommandContext, MainOptions, RegisterCommand } from "./support/common.ts";
import { type CliIO, jsonText, processIO } from "./support/output.ts";
import { isVersionRequest, memdirVersion } from "./version.ts";

// Each command file adds one line here (keep alphabetical). Commands load lazily: a run imports
// only the command it runs (the MCP SDK, model clients and agent tools cost start-up time that
// `memdir path` should not pay; hooks start a process per agent turn).
const commands: Record<string, () => Promise<RegisterCommand>> = {
  add: async () => (await import("./commands/memories/add.ts")).registerAddCommand,
  chat: async () => (await import("./commands/hosts/chat.ts")).registerChatCommand,
  context: async () => (await import("./commands/memories/context.ts")).registerContextCommand,
  doctor: async () => (await import("./commands/upkeep/doctor.ts")).registerDoctorCommand,
  dream: async () => (await import("./commands/upkeep/dream.ts")).registerDreamCommand,
  eval: async () => (await import("./commands/memories/eval.ts")).registerEvalCommand,
  export: async () => (await import("./commands/upkeep/export.ts")).registerExportCommand,
  extract: async () => (await import("./commands/upkeep/extract.ts")).registerExtractCommand,
  forget: async () => (await import("./commands/memories/forget.ts")).registerForgetCommand,
  helper: async () => (await import("./commands/hosts/helper.ts")).registerHelperCommand,
  history: async () => (await import("./commands/upkeep/history.ts")).registerHistoryCommand,
  hook: async () => (await import("./commands/hosts/hook.ts")).registerHookCommand,
  import: async () => (await import("./commands/upkeep/import.ts")).registerImportCommand,
  inbox: async () => (await import("./commands/upkeep/inbox.ts")).registerInboxCommand,
  list: async () => (await import("./commands/memories/list.ts")).registerListCommand,
  mcp: async () => (await import("./commands/hosts/mcp.ts")).registerMcpCommand,
  migrate: async () => (await import("./commands/memories/migrate.ts")).registerMigrateCommand,
  path: async () => (await import("./commands/memories/path.ts")).registerPathCommand,
  recall: async () => (await import("./commands/memories/recall.ts")).registerRecallCommand,
  remember: async () => (await import("./commands/memories/remember.ts")).registerRememberCommand,
  rm: async () => (await import("./commands/memories/rm.ts")).registerRmCommand,
  run: async () => (await import("./commands/hosts/run.ts")).registerRunCommand,
  setup: async () => (await import("./commands/hosts/setup.ts")).registerSetupCommand,
  show: async () => (await import("./commands/memories/show.ts")).registerShowCommand,
  ui: async () => (await import("./commands/memories/ui.ts")).registerUiCommand,
  sync: async () => (await import("./commands/upkeep/sync.ts")).registerSyncCommand,
  undo: async () => (await import("./commands/upkeep/undo.ts")).registerUndoCommand,
  "warm-up": async () => (await import("./commands/hosts/warm-up.ts")).registerWarmUpCommand,
};

/** The register functions this argv needs: just its command, or all of them for help and errors. */
async function commandsFor(argv: string[]): Promise<RegisterCommand[]> {
  const name = argv[2];
  const loader = name !== undefined && Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (loader) return [await loader()];
  return Promise.all(Object.values(commands).map((load) => load()));
}

/**
 * Whether the process must exit as soon as `main(argv)` returns: a hook has answered, and nothing
 * it may still hold (a stdin its host never closes, an aborted scan) is worth waiting for. The
 * background work it starts runs in detached processes of its own.
 */
export function mustExitAfter(argv: readonly string[]): boolean {
  return argv[2] === "hook";
}

/**
 * What `memdir hook …` answers when its arguments could not even be parsed (a bad flag, a missing
 * option value) or it failed: `{}` on stdout, one line on stderr, exit code 0. Help stays help.
 */
function hookFailure(io: CliIO, error: unknown): number {
  if (error instanceof CommanderError && error.code.startsWith("commander.help")) return 0;
  const message = error instanceof Error ? error.message.replace(/^error: /, "") : String(error);
  io.stderr(`memdir: hook: ${message.split("\n")[0]}; nothing to add\n`);
  io.stdout("{}\n");
  return 0;
}

/**
 * Runs the CLI with `argv` (as `process.argv`: node, script, args…) and resolves to the exit code:
 * 0 success, 1 error, 2 usage error. With `--json`, an error is also printed on stdout as
 * `{"error": {"code", "message"}}` (docs/cli.md#errors).
 */
export async function main(argv: string[], options: MainOptions = {}): Promise<number> {
  const io = options.io ?? processIO;
  const env = options.env ?? process.env;
  if (isVersionRequest(argv.slice(2))) {
    io.stdout(`${memdirVersion()}\n`);
    return 0;
  }
  let exitCode = 0;
  const context: CommandContext = {
    io,
    env,
    // Read when a command needs it, as process.cwd() was: a hook run in a removed folder still answers.
    get cwd() {
      return options.cwd ?? process.cwd();
    },
    setExitCode: (code) => {
      exitCode = code;
    },
    memdirs: options.memdirs,
    main,
    now: options.now ?? Date.now,
  };
  const program = new Command("memdir")
    .description(
      "Long-term memory for LLM agents: markdown files in a per-project memory directory (memdir path prints this project's).",
    )
    // Answered above, before any command loads; declared here for `memdir --help`.
    .option("-V, --version", "print memdir's version")
    .exitOverride()
    // A hook's parse errors become its one stderr line in hookFailure, not a second one here.
    .configureOutput({
      writeOut: io.stdout,
      writeErr: argv[2] === "hook" ? () => {} : io.stderr,
      // One `memdir: …` line, as every other error reads (docs/cli.md), suggestion included.
      outputError: (text, write) => write(`${usageLine(text)}\n`),
    })
    .showHelpAfterError(false);
  for (const register of await commandsFor(argv)) register(program, context);
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    // A hook never fails its host: exit code 2 blocks the prompt in Claude Code (docs/design.md#hooks).
    if (argv[2] === "hook") return hookFailure(io, error);
    const failure = failureOf(argv, error);
    if (failure === null) return 0;
    if (failure.stderr !== null) io.stderr(failure.stderr);
    // Scripts read one JSON document on stdout; the line on stderr stays for the person watching.
    if (wantsJson(argv)) io.stdout(jsonText({ error: { code: failure.code, message: failure.message } }));
    return failure.exitCode;
  }
}

/** Whether `argv` asks for `--json` output (before a `--`, after which everything is an argument). */
function wantsJson(argv: readonly string[]): boolean {
  const args = argv.slice(2);
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).includes("--json");
}

/** What a failed run reports: its exit code, `--json`'s code and message, and its stderr text. */
interface Failure {
  exitCode: number;
  code: string;
  message: string;
  /** null when commander has written the line already. */
  stderr: string | null;
}

/**
 * Commander's usage error as one line: `error: unknown command 'lsit'` and its
 * `(Did you mean list?)` line → `memdir: unknown command 'lsit' (did you mean list?)`.
 */
function usageLine(text: string): string {
  const [first, ...rest] = text
    .trim()
    .replace(/^error: /, "")
    .split(/\s*\n\s*/);
  const hint = rest.join(" ").replace(/^\(Did you mean/, "(did you mean");
  return `memdir: ${first}${hint === "" ? "" : ` ${hint}`}`;
}

/** How `error` ends the run, or null when it is not a failure (help or the version shown). */
function failureOf(argv: string[], error: unknown): Failure | null {
  if (error instanceof CommanderError) {
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return null;
    if (error.code === "commander.help") return null;
    const message = usageLine(error.message);
    return { exitCode: 2, code: "usage", message, stderr: null };
  }
  if (error instanceof MemdirError)
    return {
      exitCode: error.code === "usage" ? 2 : 1,
      code: error.code,
      message: error.message,
      stderr: `${error.message}\n`,
    };
  // The file system refused (read-only, full, a file where a folder should be): one line, like
  // every MemdirError, and the same exit code; a stack trace is kept for real bugs.
  const systemLine = systemErrorLine(readOnlyBehindMkdir(error));
  if (systemLine !== null) {
    const message = `memdir: ${argv[2] ?? "memdir"}: ${systemLine}`;
    return { exitCode: 1, code: "io", message, stderr: `${message}\n` };
  }
  const message = `memdir: ${error instanceof Error ? error.message : String(error)}`;
  return {
    exitCode: 1,
    code: "internal",
    message,
    stderr: `memdir: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  };
}

/**
 * Node's recursive `mkdir` reports a read-only file system as ENOENT (the folder's parent
 * exists); tell the user the real reason: the nearest existing folder is not writable (EROFS).
 */
function readOnlyBehindMkdir(error: unknown): unknown {
  const failed = error as NodeJS.ErrnoException;
  if (failed?.code !== "ENOENT" || failed.syscall !== "mkdir" || typeof failed.path !== "string")
    return error;
  let folder = path.dirname(failed.path);
  while (!fs.existsSync(folder) && path.dirname(folder) !== folder) folder = path.dirname(folder);
  try {
    fs.accessSync(folder, fs.constants.W_OK);
    return error;
  } catch (probe) {
    return (probe as NodeJS.ErrnoException).code === "EROFS"
      ? Object.assign(new Error(`EROFS: read-only file system, mkdir '${failed.path}'`), {
          code: "EROFS",
          syscall: "mkdir",
          path: failed.path,
        })
      : error;
  }
}

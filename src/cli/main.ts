import { Command, CommanderError } from "commander";
import { MemdirError } from "../errors.ts";
import { registerAddCommand } from "./commands/add.ts";
import { registerChatCommand } from "./commands/chat.ts";
import { registerContextCommand } from "./commands/context.ts";
import { registerDoctorCommand } from "./commands/doctor.ts";
import { registerDreamCommand } from "./commands/dream.ts";
import { registerEvalCommand } from "./commands/eval.ts";
import { registerExtractCommand } from "./commands/extract.ts";
import { registerForgetCommand } from "./commands/forget.ts";
import { registerHistoryCommand } from "./commands/history.ts";
import { registerHookCommand } from "./commands/hook.ts";
import { registerListCommand } from "./commands/list.ts";
import { registerMcpCommand } from "./commands/mcp.ts";
import { registerMigrateCommand } from "./commands/migrate.ts";
import { registerPathCommand } from "./commands/path.ts";
import { registerRecallCommand } from "./commands/recall.ts";
import { registerRememberCommand } from "./commands/remember.ts";
import { registerRmCommand } from "./commands/rm.ts";
import { registerRunCommand } from "./commands/run.ts";
import { registerShowCommand } from "./commands/show.ts";
import { registerUndoCommand } from "./commands/undo.ts";
import type { CommandContext } from "./common.ts";
import { type CliIO, processIO } from "./output.ts";

/** A command module registers itself on the program. One file per command under commands/. */
export type RegisterCommand = (program: Command, context: CommandContext) => void;

// Each command file adds one line here (keep alphabetical).
const commands: RegisterCommand[] = [
  registerAddCommand,
  registerChatCommand,
  registerContextCommand,
  registerDoctorCommand,
  registerDreamCommand,
  registerEvalCommand,
  registerExtractCommand,
  registerForgetCommand,
  registerHistoryCommand,
  registerHookCommand,
  registerListCommand,
  registerMcpCommand,
  registerMigrateCommand,
  registerPathCommand,
  registerRecallCommand,
  registerRememberCommand,
  registerRmCommand,
  registerRunCommand,
  registerShowCommand,
  registerUndoCommand,
];

/**
 * Runs the CLI with `argv` (as `process.argv`: node, script, args…) and resolves to the exit code:
 * 0 success, 1 error, 2 usage error.
 */
export async function main(
  argv: string[],
  options: { io?: CliIO; env?: NodeJS.ProcessEnv } = {},
): Promise<number> {
  const io = options.io ?? processIO;
  const env = options.env ?? process.env;
  let exitCode = 0;
  const context: CommandContext = {
    io,
    env,
    setExitCode: (code) => {
      exitCode = code;
    },
  };
  const program = new Command("memdir")
    .description("Long-term memory for LLM agents: markdown files in a per-project memory directory.")
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError(false);
  for (const register of commands) register(program, context);
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return 0;
      if (error.code === "commander.help") return 0;
      return 2;
    }
    if (error instanceof MemdirError) {
      io.stderr(`${error.message}\n`);
      return error.code === "usage" ? 2 : 1;
    }
    io.stderr(`memdir: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  }
}

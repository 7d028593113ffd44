import type { Command } from "commander";
import { MemdirError } from "../errors.ts";
import type { CliIO } from "./output.ts";

/** Options every command takes (SPEC §8, issue 2). */
export interface CommonOptions {
  root?: string;
  cwd?: string;
  dir?: string;
  json?: boolean;
}

/** Adds `--root`, `--cwd`, `--dir`, `--json` to a command. */
export function withCommonOptions(command: Command): Command {
  return command
    .option("--root <dir>", "memory root (default: $MEMDIR_ROOT, then ~/.claude)")
    .option("--cwd <dir>", "project directory to resolve memory for (default: the current directory)")
    .option("--dir <memory-dir>", "use this memory directory directly, bypassing project resolution")
    .option("--json", "machine-readable output");
}

/** What each command's action receives besides its own arguments. */
export interface CommandContext {
  io: CliIO;
  env: NodeJS.ProcessEnv;
  /** Sets the process exit code without throwing. */
  setExitCode: (code: number) => void;
}

/** Thrown for bad usage; main() maps it to exit code 2. */
export function usageError(message: string): MemdirError {
  return new MemdirError("usage", message);
}

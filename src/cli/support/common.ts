import path from "node:path";
import type { Command } from "commander";
import { MemdirError } from "../../errors.ts";
import type { MemdirProvider } from "../../helper/server.ts";
import type { CliIO } from "./output.ts";

/** Options every command takes (docs/design.md#interfaces). */
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
  /**
   * The directory relative paths and the project resolve from: the process's, or inside the
   * memory helper the client's (docs/design.md#the-memory-helper). Read it only where the process's
   * would have been read (a run whose directory is gone fails there, not at start).
   */
  readonly cwd: string;
  /** Sets the process exit code without throwing. */
  setExitCode: (code: number) => void;
  /**
   * Set when the CLI runs inside the memory helper (docs/design.md#the-memory-helper): the
   * long-lived, watched instances that commands use instead of opening their own.
   */
  memdirs?: MemdirProvider;
  /** The CLI's `main` itself, for the one command that runs others (`memdir helper serve`). */
  main?: (argv: string[], options: MainOptions) => Promise<number>;
  /** The clock human output measures ages against ("2 days ago"). */
  now: () => number;
}

/** The options of `main()` in main.ts. */
export interface MainOptions {
  io?: CliIO;
  env?: NodeJS.ProcessEnv;
  /** See {@link CommandContext.cwd} (default: `process.cwd()`). */
  cwd?: string;
  /** See {@link CommandContext.memdirs}. */
  memdirs?: MemdirProvider;
  /** See {@link CommandContext.now} (default: `Date.now`). */
  now?: () => number;
}

/**
 * A command module registers itself on the program. One file per command under commands/; the
 * type lives here, not in main.ts, so that commands never import the file that loads them.
 */
export type RegisterCommand = (program: Command, context: CommandContext) => void;

/**
 * `target` resolved against the command's directory ({@link CommandContext.cwd}), as
 * `path.resolve(target)` would against the process's: an absolute `target` never reads it.
 */
export function resolveFrom(context: Pick<CommandContext, "cwd">, target: string): string {
  return path.isAbsolute(target) ? path.resolve(target) : path.resolve(context.cwd, target);
}

/** Thrown for bad usage; main() maps it to exit code 2. */
export function usageError(message: string): MemdirError {
  return new MemdirError("usage", message);
}

/** The model flags of every command that may call a model (docs/design.md#interfaces). */
export interface ModelOptions {
  provider?: string;
  model?: string;
  baseUrl?: string;
}

/** Adds `--provider`, `--model`, `--base-url` (they override `MEMDIR_PROVIDER`, `MEMDIR_MODEL`, `*_BASE_URL`). */
export function withModelOptions(command: Command): Command {
  return command
    .option(
      "--provider <name>",
      "anthropic | openai (default: $MEMDIR_PROVIDER, else whichever API key is set)",
    )
    .option("--model <id>", "model id (default: $MEMDIR_MODEL, else the provider's default)")
    .option("--base-url <url>", "API base URL (a proxy, or a local OpenAI-compatible server)");
}

/** The model part of `resolveConfig` options, from a command's flags. */
export function modelConfigOptions(options: ModelOptions): {
  provider?: string;
  model?: string;
  baseURL?: string;
} {
  return {
    ...(options.provider ? { provider: options.provider } : {}),
    ...(options.model ? { model: options.model } : {}),
    ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
  };
}

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { cliNodeArgs } from "./node-entry.ts";

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /**
   * True when the child ran past `timeoutMs` and was killed there (its `code` is null then);
   * always set by {@link runProcess}.
   */
  timedOut?: boolean;
}

/**
 * Runs the memdir CLI from sources as a real child process. `env` is merged over a clean
 * environment whose HOME is `home` (never the developer's real home) and with the memory helper off.
 */
export function runCli(
  args: string[],
  options: {
    cwd?: string;
    env?: Record<string, string | undefined>;
    input?: string;
    home: string;
    timeoutMs?: number;
    /** A command the CLI runs under (its arguments end with the CLI's), e.g. `["unshare", "--mount", …]`. */
    under?: string[];
  },
): Promise<CliResult> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: options.home,
    NO_COLOR: "1",
    // No memory helper (docs/design.md#the-memory-helper): a session-start would start one that
    // outlives the test by its idle time; test/helper/ turns it on where it is tested.
    MEMDIR_HELPER: "0",
  };
  for (const [k, v] of Object.entries(options.env ?? {})) if (v !== undefined) env[k] = v;
  const [command, ...commandArgs] = [...(options.under ?? []), process.execPath, ...cliNodeArgs(), ...args];
  return runProcess(command, commandArgs, {
    cwd: options.cwd ?? options.home,
    env,
    input: options.input,
    timeoutMs: options.timeoutMs,
  });
}

/**
 * Runs `command` as a real child process with exactly `env`, writes `input` to its stdin and
 * collects its output; killed after `timeoutMs` (default 30 s).
 */
export function runProcess(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; input?: string; timeoutMs?: number },
): Promise<CliResult> {
  const started = startProcess(command, args, options);
  started.child.stdin.end(options.input ?? "");
  return started.result;
}

/** A child started by {@link startProcess}: its stdin is the caller's to write and end. */
export interface StartedProcess {
  child: ChildProcessWithoutNullStreams;
  /** What it printed so far (stdout and stderr). */
  output(): { stdout: string; stderr: string };
  /** Resolves once it has exited and its output is read; `timedOut` when killed at the bound. */
  result: Promise<CliResult & { signal: NodeJS.Signals | null }>;
}

/**
 * Starts `command` as a real child process with exactly `env`, collecting its output, and kills
 * it after `timeoutMs` (default 30 s). For tests that signal the child, keep its stdin open or
 * watch it mid-run; {@link runProcess} when it only needs input and the result.
 */
export function startProcess(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs?: number },
): StartedProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, options.timeoutMs ?? 30_000);
  const result = new Promise<CliResult & { signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
    // A command that exits without reading its stdin (most do) closes the pipe first: EPIPE on
    // our end is expected then, not a test failure.
    child.stdin.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") reject(error);
    });
  });
  return { child, output: () => ({ stdout, stderr }), result };
}

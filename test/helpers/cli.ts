import { spawn } from "node:child_process";
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
 * environment whose HOME is `home` (never the developer's real home).
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
  return new Promise((resolve, reject) => {
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
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
    // A command that exits without reading its stdin (most do) closes the pipe first: EPIPE on
    // our end is expected then, not a test failure.
    child.stdin.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") reject(error);
    });
    child.stdin.end(options.input ?? "");
  });
}

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { MemdirError } from "../../src/errors.ts";
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
  const env = cliEnv(options);
  const [command, ...commandArgs] = [...(options.under ?? []), process.execPath, ...cliNodeArgs(), ...args];
  return runProcess(command, commandArgs, {
    cwd: options.cwd ?? options.home,
    env,
    input: options.input,
    timeoutMs: options.timeoutMs,
  });
}

/** The environment {@link runCli} and {@link runCliInProcess} run the CLI with. */
function cliEnv(options: { env?: Record<string, string | undefined>; home: string }): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: options.home,
    NO_COLOR: "1",
    // No memory helper (docs/design.md#the-memory-helper): a session-start would start one that
    // outlives the test by its idle time; test/helper/ turns it on where it is tested.
    MEMDIR_HELPER: "0",
  };
  for (const [k, v] of Object.entries(options.env ?? {})) if (v !== undefined) env[k] = v;
  return env;
}

/** The in-process runs of this test file, one at a time: each holds the process's cwd and env. */
let inProcessQueue: Promise<unknown> = Promise.resolve();

/**
 * Runs the memdir CLI's `main` in this process, with the same arguments, environment, stdin and
 * result as {@link runCli}: for tests of what a command prints and answers (output, flags, `--json`
 * shapes, errors), where starting a process costs time and proves nothing. Tests of process
 * behaviour (exit on a signal, a hook's exit code under a host, stdin never closed, the helper,
 * `bin/memdir.js`) keep {@link runCli}.
 *
 * Like the memory helper's runs (src/cli/commands/hosts/helper.ts), it sets the process's cwd and
 * `process.env` to the run's for its duration, so code that reads `os.homedir()` sees the test's
 * HOME; runs in one file are queued. `timeoutMs` and `under` are not supported: a test that needs
 * them is about the process.
 */
export function runCliInProcess(
  args: string[],
  options: {
    cwd?: string;
    env?: Record<string, string | undefined>;
    input?: string;
    home: string;
    /** Stderr as a terminal, for progress output (src/cli/support/progress.ts). */
    stderrIsTTY?: boolean;
  },
): Promise<CliResult> {
  const run = inProcessQueue.then(() => runMainOnce(args, options));
  inProcessQueue = run.catch(() => undefined);
  return run;
}

async function runMainOnce(
  args: string[],
  options: {
    cwd?: string;
    env?: Record<string, string | undefined>;
    input?: string;
    home: string;
    /** Stderr as a terminal, for progress output (src/cli/support/progress.ts). */
    stderrIsTTY?: boolean;
  },
): Promise<CliResult> {
  const { main } = await import("../../src/cli/main.ts");
  const env = cliEnv(options);
  const input = options.input ?? "";
  let stdout = "";
  let stderr = "";
  const savedCwd = process.cwd();
  const savedEnv = { ...process.env };
  const savedArgv = process.argv;
  // A command that starts memdir in the background (a hook's extraction, the warm-up) starts
  // `process.argv[1]`: the CLI, never this test file (src/hooks/spawn.ts).
  process.argv = [process.execPath, cliNodeArgs().at(-1)!, ...args];
  process.chdir(options.cwd ?? options.home);
  for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
  Object.assign(process.env, env);
  try {
    const code = await main([process.execPath, "memdir", ...args], {
      cwd: options.cwd ?? options.home,
      io: {
        stdout: (text) => {
          stdout += text;
        },
        stderr: (text) => {
          stderr += text;
        },
        // As readStdin (src/cli/support/output.ts): past maxBytes, the same refusal.
        stdin: async (_signal, maxBytes = Number.POSITIVE_INFINITY) => {
          if (Buffer.byteLength(input) > maxBytes)
            throw new MemdirError("invalid-input", `stdin: more than ${maxBytes} bytes`);
          return input;
        },
        ...(options.stderrIsTTY ? { stderrIsTTY: true } : {}),
      },
      env,
    });
    return { code, stdout, stderr, timedOut: false };
  } finally {
    process.argv = savedArgv;
    process.chdir(savedCwd);
    for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
    Object.assign(process.env, savedEnv);
  }
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

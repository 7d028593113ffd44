import { type ChildProcess, spawn } from "node:child_process";
import { after } from "node:test";
import { cliNodeArgs } from "../helpers/node-entry.ts";

/** A running `memdir ui --json` child process. */
export interface UiProcess {
  child: ChildProcess;
  /** The URL it printed (with the token). */
  url: string;
  origin: string;
  port: number;
  token: string;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
  /** Sends `signal` and resolves with the exit code once it has exited. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `memdir ui --json` with `args` as a real child process (HOME = `home`) and resolves once
 * it has printed its `{"url": …}` line. The process is killed when the current test ends, unless
 * `ownCleanup` (a suite's `before` hook starts it and its `after` hook stops it).
 */
export function startUi(
  args: string[],
  options: { home: string; env?: Record<string, string>; ownCleanup?: boolean },
): Promise<UiProcess> {
  const child = spawn(process.execPath, [...cliNodeArgs(), "ui", "--json", ...args], {
    cwd: options.home,
    env: { PATH: process.env.PATH ?? "", HOME: options.home, NO_COLOR: "1", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  if (!options.ownCleanup)
    after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    });
  let stdout = "";
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`memdir ui printed no URL in time; stderr: ${stderr}`)),
      30_000,
    );
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`memdir ui exited with ${code} before printing its URL; stderr: ${stderr}`));
    });
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const newline = stdout.indexOf("\n");
      if (newline < 0) return;
      clearTimeout(timer);
      const { url } = JSON.parse(stdout.slice(0, newline)) as { url: string };
      const parsed = new URL(url);
      resolve({
        child,
        url,
        origin: parsed.origin,
        port: Number(parsed.port),
        token: parsed.searchParams.get("token") ?? "",
        stderr: () => stderr,
        stop: (signal = "SIGTERM") => {
          child.kill(signal);
          return exited;
        },
      });
    });
  });
}

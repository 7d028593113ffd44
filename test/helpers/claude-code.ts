import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { FakeRequest } from "../../src/testing/index.ts";
import { answersVersion, installAgent } from "./agent-install.ts";
import { cliNodeArgs } from "./node-entry.ts";

/** The Claude Code release the integration test runs (the current one when it was written). */
export const CLAUDE_CODE_VERSION = "2.1.328";

/**
 * The installed package's `claude`. The wrapper's postinstall copies the platform package's
 * native binary over `bin/claude.exe`; if npm did not run it (install scripts off), the platform
 * package's own binary is used. Null when neither answers `--version` with our version.
 */
function findBinary(prefix: string): string | null {
  const scope = path.join(prefix, "node_modules", "@anthropic-ai");
  const candidates = [path.join(scope, "claude-code", "bin", "claude.exe")];
  if (fs.existsSync(scope))
    for (const entry of fs.readdirSync(scope))
      if (entry.startsWith("claude-code-")) candidates.push(path.join(scope, entry, "claude"));
  return candidates.find((candidate) => answersVersion(candidate, CLAUDE_CODE_VERSION)) ?? null;
}

/**
 * Installs `@anthropic-ai/claude-code@CLAUDE_CODE_VERSION` from the npm registry into the cache,
 * once (test/helpers/agent-install.ts), and returns the path of `claude`, or `{skip}` when the
 * registry cannot be reached.
 */
export function installClaudeCode(): { bin: string } | { skip: string } {
  return installAgent({
    name: "@anthropic-ai/claude-code",
    version: CLAUDE_CODE_VERSION,
    slug: "claude-code",
    findBinary,
  });
}

/**
 * Puts a `memdir` command on a PATH folder inside `home`: it runs `command`, by default the CLI
 * from the current sources (the build `npm test` makes, else tsx), so hooks can be wired with the
 * documented `memdir hook <event>` commands. Returns the folder.
 */
export function memdirOnPath(home: string, command = [process.execPath, ...cliNodeArgs()]): string {
  const binDir = path.join(home, "bin");
  fs.mkdirSync(binDir, { recursive: true });
  const quoted = command.map((arg) => `'${arg.replaceAll("'", "'\\''")}'`);
  fs.writeFileSync(path.join(binDir, "memdir"), `#!/bin/sh\nexec ${quoted.join(" ")} "$@"\n`, {
    mode: 0o755,
  });
  return binDir;
}

export interface ClaudeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The `--output-format json` result (`result`, `num_turns`, `is_error`, …), or null. */
  result: { result?: string; num_turns?: number; is_error?: boolean } | null;
}

/**
 * Runs `claude -p <prompt> --output-format json` offline against the fake model server: a clean
 * environment with `HOME` = `home`, `ANTHROPIC_BASE_URL` at the server, any key, and
 * `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1` (no update checks, telemetry or other hosts).
 */
export function runClaude(
  bin: string,
  options: {
    home: string;
    cwd: string;
    prompt: string;
    baseURL: string;
    args?: string[];
    env?: Record<string, string>;
    pathDirs?: string[];
    timeoutMs?: number;
  },
): Promise<ClaudeRun> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = {
      PATH: [...(options.pathDirs ?? []), process.env.PATH ?? ""].join(path.delimiter),
      // memdir's hooks start no memory helper: it would outlive the run (backgroundDone waits for all).
      MEMDIR_HELPER: "0",
      HOME: options.home,
      NO_COLOR: "1",
      ANTHROPIC_BASE_URL: options.baseURL,
      ANTHROPIC_API_KEY: "sk-ant-fake-key-for-tests",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      ...options.env,
    };
    const child = spawn(bin, ["-p", options.prompt, "--output-format", "json", ...(options.args ?? [])], {
      cwd: options.cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 90_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      let result: ClaudeRun["result"] = null;
      try {
        result = JSON.parse(stdout) as ClaudeRun["result"];
      } catch {}
      resolve({ code, stdout, stderr, result });
    });
  });
}

/** True for a request Claude Code made itself (its user agent), false for one of memdir's. */
export function fromClaudeCode(request: FakeRequest): boolean {
  return (request.headers["user-agent"] ?? "").startsWith("claude-cli/");
}

/** Every text the model sees in a request: system blocks and all message text and tool results. */
export function modelVisibleText(request: FakeRequest): string {
  const texts: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === "string") texts.push(value);
    else if (Array.isArray(value)) for (const item of value) collect(item);
    else if (value && typeof value === "object") {
      const block = value as Record<string, unknown>;
      if (typeof block.text === "string") texts.push(block.text);
      if (block.content !== undefined) collect(block.content);
    }
  };
  collect(request.body?.system);
  collect(request.body?.messages);
  return texts.join("\n");
}

/** How often `needle` occurs in `text`. */
export function occurrences(text: string, needle: string): number {
  return needle === "" ? 0 : text.split(needle).length - 1;
}

/**
 * Pids of the processes whose environment has `HOME=<home>`: what a run left behind in the
 * background (memdir's detached extraction or warm-up). Linux only (reads /proc); elsewhere none.
 */
export function processesOfHome(home: string): number[] {
  if (!fs.existsSync("/proc/self/environ")) return [];
  const marker = `\0HOME=${home}\0`;
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (`\0${fs.readFileSync(`/proc/${entry}/environ`, "latin1")}`.includes(marker))
        pids.push(Number(entry));
    } catch {} // gone meanwhile, or not ours to read
  }
  return pids;
}

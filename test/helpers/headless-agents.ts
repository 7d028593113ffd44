import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { FakeRequest } from "../../src/testing/index.ts";
import { answersVersion, installAgent } from "./agent-install.ts";
import { processesOfHome } from "./claude-code.ts";
import { runCli } from "./cli.ts";
import { cliNodeArgs } from "./node-entry.ts";
import { makeTempDir } from "./temp.ts";
import { waitFor } from "./wait.ts";

// Gemini CLI and Qwen Code, installed from the npm registry (pinned) and run headless against the
// fake model server (AGENTS-OFFLINE.md): what test/integration/gemini.test.ts, qwen.test.ts and
// cross-agent.test.ts share.

/** The Gemini CLI release the integration tests run. */
export const GEMINI_CLI_VERSION = "0.61.0";
/** The Qwen Code release the integration tests run. */
export const QWEN_CODE_VERSION = "0.24.4";

export type HeadlessAgent = "gemini" | "qwen";

const PACKAGES = {
  gemini: { name: "@google/gemini-cli", version: GEMINI_CLI_VERSION, slug: "gemini-cli", bin: "gemini" },
  qwen: { name: "@qwen-code/qwen-code", version: QWEN_CODE_VERSION, slug: "qwen-code", bin: "qwen" },
} as const;

/** Installs the agent into the shared cache once; its binary, or `{skip}` when the registry is unreachable. */
export function installHeadlessAgent(agent: HeadlessAgent): { bin: string } | { skip: string } {
  const spec = PACKAGES[agent];
  return installAgent({
    ...spec,
    findBinary: (prefix) => {
      const bin = path.join(prefix, "node_modules", ".bin", spec.bin);
      return answersVersion(bin, spec.version) ? bin : null;
    },
  });
}

/** True for a request the agent made itself (its user agent), false for anyone else's (memdir's). */
export function fromAgent(agent: HeadlessAgent, request: FakeRequest): boolean {
  const userAgent = request.headers["user-agent"] ?? "";
  return agent === "gemini"
    ? userAgent.startsWith(`GeminiCLI-tui/${GEMINI_CLI_VERSION}/`) || userAgent.startsWith("GeminiCLI/")
    : userAgent.startsWith(`QwenCode/${QWEN_CODE_VERSION}`);
}

/** Every text the model sees in a request of either wire: system, messages or contents, tool results. */
export function requestText(request: FakeRequest): string {
  const texts: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === "string") texts.push(value);
    else if (Array.isArray(value)) for (const item of value) collect(item);
    else if (value && typeof value === "object") for (const item of Object.values(value)) collect(item);
  };
  collect(request.body?.systemInstruction);
  collect(request.body?.contents);
  collect(request.body?.messages);
  return texts.join("\n");
}

/** How often `needle` occurs in `text`. */
export function occurrences(text: string, needle: string): number {
  return needle === "" ? 0 : text.split(needle).length - 1;
}

/** A throwaway HOME with a git project `shop`, memdir on its PATH, and where memdir keeps its memory. */
export interface AgentProject {
  home: string;
  project: string;
  memoryDir: string;
  pathDirs: string[];
  /** memdir's hook calls: one JSON line each, `{event, input, output}` (see {@link agentProject}). */
  hookLog: string;
}

/**
 * Makes the project. The `memdir` on PATH runs the current sources and, for `memdir hook …`,
 * appends what the agent sent and what memdir answered to `hookLog`, so a test can see every hook
 * call the agent made (Qwen Code's re-fired empty prompts among them).
 */
export async function agentProject(): Promise<AgentProject> {
  const home = makeTempDir("memdir-agent-");
  const project = path.join(home, "shop");
  fs.mkdirSync(project);
  execFileSync("git", ["init", "-q", project]);
  const binDir = path.join(home, "bin");
  fs.mkdirSync(binDir);
  const hookLog = path.join(home, "hook-calls.jsonl");
  const memdir = [process.execPath, ...cliNodeArgs()].map((arg) => `'${arg.replaceAll("'", "'\\''")}'`);
  const logger = path.join(binDir, "log-hook.cjs");
  fs.writeFileSync(
    logger,
    `const fs = require("node:fs");
const [log, event, input, output] = process.argv.slice(2);
fs.appendFileSync(log, JSON.stringify({ event, input: fs.readFileSync(input, "utf8"), output: fs.readFileSync(output, "utf8") }) + "\\n");
`,
  );
  fs.writeFileSync(
    path.join(binDir, "memdir"),
    `#!/bin/sh
if [ "$1" = hook ]; then
  input=$(mktemp); output=$(mktemp)
  cat > "$input"
  ${memdir.join(" ")} "$@" < "$input" > "$output"
  code=$?
  '${process.execPath}' '${logger}' '${hookLog}' "$2" "$input" "$output"
  cat "$output"; rm -f "$input" "$output"
  exit $code
fi
exec ${memdir.join(" ")} "$@"
`,
    { mode: 0o755 },
  );
  const pathDirs = [binDir];
  const where = await runCli(["path"], { home, cwd: project });
  if (where.code !== 0) throw new Error(`memdir path: ${where.stderr}`);
  return { home, project, memoryDir: where.stdout.trim(), pathDirs, hookLog };
}

/** The hook calls logged so far (see {@link agentProject}). */
export function hookCalls(
  fixture: AgentProject,
): { event: string; input: Record<string, unknown>; output: string }[] {
  if (!fs.existsSync(fixture.hookLog)) return [];
  return fs
    .readFileSync(fixture.hookLog, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const call = JSON.parse(line) as { event: string; input: string; output: string };
      let input: Record<string, unknown> = {};
      try {
        input = JSON.parse(call.input) as Record<string, unknown>;
      } catch {}
      return { event: call.event, input, output: call.output.trim() };
    });
}

/**
 * Gemini CLI's own settings as a user who signed in with an API key has them (without
 * `security.auth.selectedType` it exits 41, "Invalid auth method selected"), telemetry and
 * update checks off. Written before `memdir setup gemini`, which keeps them.
 */
export function writeGeminiUserSettings(home: string): void {
  writeUserSettings(path.join(home, ".gemini"), {
    security: { auth: { selectedType: "gemini-api-key" } },
    ...OPTED_OUT,
  });
}

/** Usage statistics, telemetry and update checks off: what both agents' settings say alike. */
const OPTED_OUT = {
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { disableAutoUpdate: true, disableUpdateNag: true },
};

function writeUserSettings(folder: string, settings: object): void {
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, "settings.json"), JSON.stringify(settings));
}

/**
 * Qwen Code's own settings with usage statistics (its RUM logger, which reports to
 * rum.aliyuncs.com), telemetry and update checks off, as a user opts out: a test reaches no
 * network. Written before `memdir setup qwen`, which keeps them.
 */
export function writeQwenUserSettings(home: string): void {
  writeUserSettings(path.join(home, ".qwen"), OPTED_OUT);
}

/** `memdir setup <agent>` as a user runs it, in the project; the files it changed. */
export async function setupAgent(
  fixture: AgentProject,
  agent: string,
  args: string[] = [],
): Promise<string[]> {
  // `--command memdir`: the documented command, answered by the wrapper on the agent's PATH (not a
  // link to bin/memdir.js, so setup would otherwise write the absolute form past it).
  const setup = await runCli(["setup", agent, "--json", "--command", "memdir", ...args], {
    home: fixture.home,
    cwd: fixture.project,
  });
  if (setup.code !== 0) throw new Error(`memdir setup ${agent}: ${setup.stderr}`);
  return (JSON.parse(setup.stdout) as { files: { path: string; changed: boolean }[] }).files
    .filter((file) => file.changed)
    .map((file) => file.path);
}

export interface AgentRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The final answer the agent printed (`-o json`: Gemini's `response`, Qwen's result event). */
  response: string | null;
}

/**
 * Runs `gemini -p` or `qwen -p` (`-o json`) in the project against the fake model server, with a
 * clean environment: HOME the fixture's, the server's URL and a dummy key (AGENTS-OFFLINE.md), no
 * memory helper (it would outlive the run). Resolves when the process has exited.
 */
export function runAgent(
  agent: HeadlessAgent,
  bin: string,
  fixture: AgentProject,
  options: { prompt: string; url: string; args?: string[]; env?: Record<string, string>; timeoutMs?: number },
): Promise<AgentRun> {
  const agentEnv: Record<string, string> =
    agent === "gemini"
      ? {
          GOOGLE_GEMINI_BASE_URL: options.url,
          GEMINI_API_KEY: "fake-key",
          GEMINI_CLI_TRUST_WORKSPACE: "true",
        }
      : { OPENAI_BASE_URL: `${options.url}/v1`, OPENAI_API_KEY: "fake-key", OPENAI_MODEL: "fake-model" };
  const env: Record<string, string> = {
    PATH: [...fixture.pathDirs, process.env.PATH ?? ""].join(path.delimiter),
    HOME: fixture.home,
    NO_COLOR: "1",
    MEMDIR_HELPER: "0",
    ...agentEnv,
    ...options.env,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ["-p", options.prompt, "-o", "json", ...(options.args ?? [])], {
      cwd: fixture.project,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (data: string) => {
      stdout += data;
    });
    child.stderr.setEncoding("utf8").on("data", (data: string) => {
      stderr += data;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 180_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, response: finalResponse(agent, stdout) });
    });
  });
}

function finalResponse(agent: HeadlessAgent, stdout: string): string | null {
  try {
    const parsed: unknown = JSON.parse(stdout);
    if (agent === "gemini") return (parsed as { response?: string }).response ?? null;
    const events = parsed as { type?: string; result?: string }[];
    return events.find((event) => event.type === "result")?.result ?? null;
  } catch {
    return null;
  }
}

/** Waits until nothing the run started is still running (memdir's MCP server, a detached warm-up). */
export async function backgroundDone(home: string): Promise<void> {
  await waitFor(() => processesOfHome(home).length === 0, { what: "the run's background processes" });
}

/** Kills what the fixture's runs left behind, once the test is over. */
export function killLeftovers(home: string): void {
  for (const pid of processesOfHome(home)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
}

/** The memory files in the memory dir (MEMORY.md and dot-folders left out). */
export function memoryFiles(memoryDir: string): string[] {
  if (!fs.existsSync(memoryDir)) return [];
  return fs
    .readdirSync(memoryDir)
    .filter((name) => name.endsWith(".md") && name !== "MEMORY.md")
    .sort();
}

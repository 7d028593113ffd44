import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { FakeRequest } from "../../src/testing/index.ts";
import { answersVersion, installAgent } from "./agent-install.ts";

/** The Codex CLI release the integration test runs. */
export const CODEX_VERSION = "0.169.0";

/**
 * The installed package's native `codex`: `@openai/codex` is a Node wrapper that starts the binary
 * of its platform package (`@openai/codex-linux-x64` here), which is run directly. Null when none
 * answers `--version` with our version.
 */
function findBinary(prefix: string): string | null {
  const scope = path.join(prefix, "node_modules", "@openai");
  if (!fs.existsSync(scope)) return null;
  const candidates: string[] = [];
  for (const entry of fs.readdirSync(scope)) {
    if (!entry.startsWith("codex-")) continue;
    const vendor = path.join(scope, entry, "vendor");
    if (!fs.existsSync(vendor)) continue;
    for (const triple of fs.readdirSync(vendor)) candidates.push(path.join(vendor, triple, "bin", "codex"));
  }
  return candidates.find((candidate) => answersVersion(candidate, CODEX_VERSION)) ?? null;
}

/**
 * Installs `@openai/codex@CODEX_VERSION` from the npm registry into the cache, once
 * (test/helpers/agent-install.ts), and returns the path of `codex`, or `{skip}` when the registry
 * cannot be reached.
 */
export function installCodex(): { bin: string } | { skip: string } {
  return installAgent({ name: "@openai/codex", version: CODEX_VERSION, slug: "codex", findBinary });
}

export interface CodexRun {
  code: number | null;
  /** The final answer (`codex exec` prints only that on stdout). */
  stdout: string;
  /** Codex's progress: the prompt, hooks run, MCP tool calls, warnings. */
  stderr: string;
}

/**
 * Runs `codex exec <prompt>` offline against the fake model server: a provider `fake` at
 * `baseURL` (Responses API), a clean environment with `HOME` = `home` and `CODEX_HOME` =
 * `home/.codex`, and no stdin. Resolves when the process exits (after `timeoutMs` it is killed).
 */
export function runCodex(
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
): Promise<CodexRun> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = {
      PATH: [...(options.pathDirs ?? []), process.env.PATH ?? ""].join(path.delimiter),
      // memdir's hooks start no memory helper: it would outlive the run.
      MEMDIR_HELPER: "0",
      HOME: options.home,
      CODEX_HOME: path.join(options.home, ".codex"),
      NO_COLOR: "1",
      FAKE_API_KEY: "sk-fake-key-for-tests",
      ...options.env,
    };
    const provider = [
      'model="fake-model"',
      'model_provider="fake"',
      'model_providers.fake.name="fake"',
      `model_providers.fake.base_url=${JSON.stringify(options.baseURL)}`,
      'model_providers.fake.env_key="FAKE_API_KEY"',
      'model_providers.fake.wire_api="responses"',
      // Codex otherwise reports analytics (ab.chatgpt.com), asks GitHub for a newer release and
      // syncs its plugin marketplace (github.com/openai/plugins, chatgpt.com) on start: a test
      // reaches no network. memdir needs none of them (its hooks and MCP server are config).
      "analytics.enabled=false",
      "check_for_update_on_startup=false",
      "features.plugins=false",
      "features.remote_plugin=false",
      "features.apps=false",
    ].flatMap((setting) => ["-c", setting]);
    const args = [
      "exec",
      "--skip-git-repo-check",
      "--color",
      "never",
      ...provider,
      ...(options.args ?? []),
      options.prompt,
    ];
    const child = spawn(bin, args, { cwd: options.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 180_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** True for a request Codex made itself (its user agent), false for one of memdir's. */
export function fromCodex(request: FakeRequest): boolean {
  return /^codex_(exec|cli)/.test(request.headers["user-agent"] ?? "");
}

/** Every text the model sees in a Responses request: the instructions and every input item's text. */
export function responsesVisibleText(request: FakeRequest): string {
  const texts: string[] = [];
  if (typeof request.body?.instructions === "string") texts.push(request.body.instructions);
  const collect = (value: unknown): void => {
    if (typeof value === "string") texts.push(value);
    else if (Array.isArray(value)) for (const item of value) collect(item);
    else if (value && typeof value === "object") {
      const item = value as Record<string, unknown>;
      if (typeof item.text === "string") texts.push(item.text);
      if (typeof item.output === "string") texts.push(item.output);
      if (item.content !== undefined) collect(item.content);
    }
  };
  collect(request.body?.input);
  return texts.join("\n");
}

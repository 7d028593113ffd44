import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { sanitizeProjectPath } from "../../src/memdir/location/paths.ts";
import type { FakeRequest } from "../../src/testing/index.ts";
import { type AgentPackage, agentCacheRoot, installAgent } from "./agent-install.ts";
import { memdirOnPath } from "./claude-code.ts";
import { memory } from "./memory.ts";
import { makeTempDir, writeTree } from "./temp.ts";

// The agents that speak OpenAI chat completions to the fake model server, pinned: GitHub Copilot
// CLI, opencode and Cline CLI (their offline setup: /work/shared/AGENTS-OFFLINE.md, restated in
// each integration test). Their binaries are found by their package's version, not by running
// `--version`: Copilot unpacks ~235 MB into the XDG cache on its first run of any kind, and that
// must go to the cache folder the tests give it, not the developer's.

export const COPILOT_VERSION = "1.0.102";
export const OPENCODE_VERSION = "1.18.33";
export const CLINE_VERSION = "3.0.65";

const platform = `${process.platform}-${process.arch}`;

/** `file` when it exists and the package.json of `packageDir` says `version`, else null. */
function pinned(packageDir: string, file: string, version: string): string | null {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, "package.json"), "utf8")) as {
      version?: string;
    };
    return manifest.version === version && fs.statSync(path.join(packageDir, file)).isFile()
      ? path.join(packageDir, file)
      : null;
  } catch {
    return null;
  }
}

const COPILOT: AgentPackage = {
  name: "@github/copilot",
  version: COPILOT_VERSION,
  slug: "copilot",
  // The native binary of the platform package npm picked from the optional dependencies.
  findBinary: (prefix) =>
    pinned(path.join(prefix, "node_modules", "@github", `copilot-${platform}`), "copilot", COPILOT_VERSION),
};

const OPENCODE: AgentPackage = {
  name: "opencode-ai",
  version: OPENCODE_VERSION,
  slug: "opencode",
  findBinary: (prefix) =>
    pinned(
      path.join(prefix, "node_modules", `opencode-${platform}`),
      path.join("bin", "opencode"),
      OPENCODE_VERSION,
    ),
};

const CLINE: AgentPackage = {
  name: "cline",
  version: CLINE_VERSION,
  slug: "cline",
  findBinary: (prefix) =>
    pinned(path.join(prefix, "node_modules", "cline"), path.join("bin", "cline"), CLINE_VERSION),
};

/** Installs `@github/copilot@COPILOT_VERSION` once (test/helpers/agent-install.ts): its binary, or `{skip}`. */
export function installCopilot(): { bin: string } | { skip: string } {
  return installAgent(COPILOT);
}

/** Installs `opencode-ai@OPENCODE_VERSION` once: its binary, or `{skip}` when the registry is unreachable. */
export function installOpencode(): { bin: string; configDeps: string } | { skip: string } {
  const opencode = installAgent(OPENCODE);
  if ("skip" in opencode) return opencode;
  const deps = installAgent(OPENCODE_CONFIG_DEPS);
  return "skip" in deps ? deps : { bin: opencode.bin, configDeps: deps.bin };
}

/**
 * What opencode installs into its config folder when it starts with a plugin there (memdir's):
 * `@opencode-ai/plugin` of its own version, through npm from the registry — 18 connections and
 * ~7 s on every run of a fresh HOME. Installed once into the cache instead, and handed to each
 * test's HOME by {@link provideOpencodeConfigDeps}, so a run reaches no network.
 */
const OPENCODE_CONFIG_DEPS: AgentPackage = {
  name: "@opencode-ai/plugin",
  version: OPENCODE_VERSION,
  slug: "opencode-config-deps",
  manifest: true,
  // The prefix itself, once it holds the pinned package and the lockfile npm wrote beside it.
  findBinary: (prefix) =>
    pinned(path.join(prefix, "node_modules", "@opencode-ai", "plugin"), "package.json", OPENCODE_VERSION) !==
      null && fs.existsSync(path.join(prefix, "package-lock.json"))
      ? prefix
      : null,
};

/**
 * Gives `home`'s opencode config folder the plugin dependencies opencode would install there:
 * the cached `node_modules` (linked, 64 MB shared by every test) and its package.json and
 * lockfile (copied), as opencode leaves them after its own install. opencode then starts without
 * installing anything.
 */
export function provideOpencodeConfigDeps(home: string, configDeps: string): void {
  const config = path.join(home, ".config", "opencode");
  fs.mkdirSync(config, { recursive: true });
  fs.symlinkSync(path.join(configDeps, "node_modules"), path.join(config, "node_modules"));
  for (const file of ["package.json", "package-lock.json"])
    fs.copyFileSync(path.join(configDeps, file), path.join(config, file));
}

/** Installs `cline@CLINE_VERSION` once: its binary, or `{skip}` when the registry is unreachable. */
export function installCline(): { bin: string } | { skip: string } {
  return installAgent(CLINE);
}

/**
 * The XDG cache Copilot CLI unpacks itself into, kept between runs beside the install (the first
 * run of a fresh folder spends about 10 s and 235 MB unpacking).
 */
export function copilotCacheHome(): string {
  const dir = path.join(agentCacheRoot(), `copilot-${COPILOT_VERSION}-xdg-cache`);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

export interface AgentRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs an agent's binary with exactly `env` in `cwd` (stdin closed) and resolves when it exits;
 * it is killed after `timeoutMs`, a bound for a hung agent, never a wait.
 */
export function runAgent(
  bin: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs?: number },
): Promise<AgentRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (data: string) => {
      stdout += data;
    });
    child.stderr.setEncoding("utf8").on("data", (data: string) => {
      stderr += data;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 600_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Every text the model sees in a chat-completions request: each message's content (a string, or
 * its parts' text), tool results as sent (Cline's carry the text block and `structuredContent`
 * in one string), and the arguments of the tool calls it made.
 */
export function chatText(request: FakeRequest): string {
  const texts: string[] = [];
  for (const message of (request.body?.messages ?? []) as Record<string, unknown>[]) {
    const content = message.content;
    if (typeof content === "string") texts.push(content);
    else if (Array.isArray(content))
      for (const part of content as Record<string, unknown>[])
        if (typeof part?.text === "string") texts.push(part.text);
  }
  return texts.join("\n");
}

/** The names of the tools a chat-completions request offers the model. */
export function toolNames(request: FakeRequest): string[] {
  return ((request.body?.tools ?? []) as { function?: { name?: string } }[]).map(
    (tool) => tool.function?.name ?? "",
  );
}

/** The tool results (role `tool`) in a chat-completions request, as sent. */
export function toolResults(request: FakeRequest): string[] {
  return ((request.body?.messages ?? []) as Record<string, unknown>[])
    .filter((message) => message.role === "tool")
    .map((message) =>
      typeof message.content === "string" ? message.content : JSON.stringify(message.content),
    );
}

/** The index line of the memory every agent project starts with. */
export const INDEX_LINE = "- [Staging freeze](project-staging-freeze.md) — staging deploys freeze on Fridays";
/** Only in that memory's body: the model sees it only if recall brought the memory. */
export const SECRET_WORD = "KESTREL-7";
export const PROMPT = "When does the staging deploy freeze start this week?";
export const ANSWER = "The staging freeze starts Friday at noon.";

export interface AgentProject {
  home: string;
  /** A git repository `shop` in `home`. */
  project: string;
  /** memdir's memory dir for `project` (memdir's default: Claude Code's folder for it). */
  memoryDir: string;
  /** The folder with the `memdir` command (the current sources) to put first on PATH. */
  binDir: string;
}

/** A throwaway HOME with a git project whose memory dir holds one memory and its index line. */
export function agentProject(prefix: string): AgentProject {
  const home = makeTempDir(prefix);
  const project = path.join(home, "shop");
  fs.mkdirSync(project);
  execFileSync("git", ["init", "-q", project]);
  const memoryDir = path.join(home, ".claude", "projects", sanitizeProjectPath(project), "memory");
  writeTree(memoryDir, {
    "MEMORY.md": `${INDEX_LINE}\n`,
    "project-staging-freeze.md": memory(
      "staging deploys freeze on Fridays",
      `The staging deploy freeze starts every Friday at noon; the release channel calls it ${SECRET_WORD}.`,
      "project",
    ),
  });
  return { home, project, memoryDir, binDir: memdirOnPath(home) };
}

/** The memory files in `memoryDir` beside the one {@link agentProject} wrote (MEMORY.md aside). */
export function newMemories(memoryDir: string): string[] {
  return fs
    .readdirSync(memoryDir)
    .filter((file) => file.endsWith(".md") && file !== "MEMORY.md" && file !== "project-staging-freeze.md")
    .sort();
}

/** The memory a scripted memory_save writes. */
export const SAVE_INPUT = {
  type: "project",
  description: "the release train leaves on Thursdays",
  content: "The release train leaves every Thursday at 15:00 UTC.\nWhy: the QA rota ends on Thursdays.",
};

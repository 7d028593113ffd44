import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { processEnv } from "../config.ts";
import { MemdirError } from "../errors.ts";
import type { Clock } from "../types.ts";
import { type FileChange, type HistoryEntry, type HistoryKind, parseKindPrefix } from "./history-types.ts";

// Dot-files are memdir's own state (locks, proposals, the journal, the project marker): never history.
const EXCLUDES = ".*\n*.tmp\n";

/**
 * True when a `git` executable runs here. Probed on every call (~20 ms on a loaded box), not
 * remembered: a history operation asks once or twice, and no process-wide state is kept.
 */
export function gitAvailable(): boolean {
  return spawnSync("git", ["--version"], { stdio: "ignore" }).status === 0;
}

interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs git on the memory dir's own repository only. GIT_DIR and GIT_WORK_TREE are explicit so
 * git never walks up into an enclosing repository (a `--dir` inside a project); inherited GIT_*
 * variables (from a hook) are dropped and the user's global and system config are ignored, so
 * signing, hooks or autocrlf settings cannot change what we record.
 */
function runGit(memoryDir: string, args: string[], options: { now?: Clock } = {}): Promise<GitResult> {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(processEnv())) if (!key.startsWith("GIT_")) env[key] = value;
  Object.assign(env, {
    GIT_DIR: path.join(memoryDir, ".git"),
    GIT_WORK_TREE: memoryDir,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: process.platform === "win32" ? "NUL" : "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    LC_ALL: "C",
  });
  if (options.now) {
    const date = `@${Math.floor(options.now() / 1000)} +0000`;
    env.GIT_AUTHOR_DATE = date;
    env.GIT_COMMITTER_DATE = date;
  }
  return new Promise((resolve, reject) => {
    // No hooks: a hook file planted in .git/hooks must never run on our commits.
    const child = spawn("git", ["-c", "core.quotepath=false", "-c", "core.hooksPath=/dev/null", ...args], {
      cwd: memoryDir,
      env,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    child.on("error", (error) =>
      reject(new MemdirError("io", `history: git failed to start`, { cause: error })),
    );
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

async function git(memoryDir: string, args: string[], options: { now?: Clock } = {}): Promise<string> {
  const result = await runGit(memoryDir, args, options);
  if (result.code !== 0)
    throw new MemdirError("io", `history: git ${args[0]} failed in ${memoryDir}: ${result.stderr.trim()}`);
  return result.stdout;
}

/** True when the memory dir has its own repository. */
export async function gitHistoryExists(memoryDir: string): Promise<boolean> {
  return fs
    .stat(path.join(memoryDir, ".git"))
    .then((s) => s.isDirectory())
    .catch(() => false);
}

/** Creates the repository (once) with a local identity: no global git config is needed. */
export async function initGitHistory(memoryDir: string): Promise<void> {
  if (await gitHistoryExists(memoryDir)) return;
  await fs.mkdir(memoryDir, { recursive: true });
  await git(memoryDir, ["init", "-q"]);
  for (const [key, value] of [
    ["user.name", "memdir"],
    ["user.email", "memdir@localhost"],
    ["commit.gpgsign", "false"],
    ["core.autocrlf", "false"],
  ])
    await git(memoryDir, ["config", key, value]);
  await fs.mkdir(path.join(memoryDir, ".git", "info"), { recursive: true });
  await fs.writeFile(path.join(memoryDir, ".git", "info", "exclude"), EXCLUDES);
}

/**
 * Commits everything that changed since the last commit as `kind: message`, with `body` lines
 * after a blank line. Returns the new entry, or null when nothing changed.
 */
export async function gitCommit(
  memoryDir: string,
  kind: HistoryKind,
  message: string,
  options: { body?: string; now?: Clock } = {},
): Promise<HistoryEntry | null> {
  await initGitHistory(memoryDir);
  await git(memoryDir, ["add", "-A"]);
  const staged = await runGit(memoryDir, ["diff", "--cached", "--quiet"]);
  // A brand-new repository has no HEAD: `diff --cached` then compares with nothing and says "changed" when files exist.
  if (staged.code === 0) return null;
  const full = options.body ? `${kind}: ${message}\n\n${options.body}` : `${kind}: ${message}`;
  const commitResult = await runGit(memoryDir, ["commit", "-q", "--no-verify", "-m", full], options);
  if (commitResult.code !== 0) {
    if (/nothing to commit/.test(commitResult.stdout + commitResult.stderr)) return null;
    throw new MemdirError("io", `history: git commit failed in ${memoryDir}: ${commitResult.stderr.trim()}`);
  }
  const hash = (await git(memoryDir, ["rev-parse", "HEAD"])).trim();
  const entries = await gitLog(memoryDir, [hash, "-1"]);
  return entries[0] ?? null;
}

const RECORD = "\x1e";
const FIELD = "\x1f";

/** Entries newest first, each with its file changes; `extra` narrows `git log` (a hash, `-1`). */
export async function gitLog(memoryDir: string, extra: string[] = []): Promise<HistoryEntry[]> {
  if (!(await gitHistoryExists(memoryDir))) return [];
  const head = await runGit(memoryDir, ["rev-parse", "--verify", "-q", "HEAD"]);
  if (head.code !== 0) return [];
  const out = await git(memoryDir, [
    "log",
    "--no-renames",
    "--name-status",
    "-z",
    `--format=${RECORD}%H${FIELD}%ct${FIELD}%B${FIELD}`,
    ...extra,
  ]);
  const entries: HistoryEntry[] = [];
  for (const record of out.split(RECORD)) {
    if (record.trim() === "") continue;
    const [hash, seconds, body, rest = ""] = record.split(FIELD);
    const lines = body.trim().split("\n");
    const { kind, message } = parseKindPrefix(lines[0] ?? "");
    const undoes = /^Undoes: ([0-9a-f]+)$/m.exec(body)?.[1];
    entries.push({
      id: hash.slice(0, 12),
      kind,
      message,
      at: new Date(Number(seconds) * 1000).toISOString(),
      changes: parseNameStatus(rest),
      ...(undoes ? { undoes: undoes.slice(0, 12) } : {}),
    });
  }
  return entries;
}

function parseNameStatus(text: string): FileChange[] {
  const parts = text.replace(/^[\0\n]+/, "").split("\0");
  const changes: FileChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const status = parts[i].trim();
    const file = parts[i + 1];
    if (!status || !file) continue;
    const change = status.startsWith("A") ? "added" : status.startsWith("D") ? "deleted" : "modified";
    changes.push({ file, change });
  }
  return changes;
}

/**
 * Reverts one commit as a new commit (history is never rewritten). A three-way revert keeps
 * later, unrelated edits to the same file (a line added to `MEMORY.md` since); when it conflicts,
 * the files that commit touched are restored to their versions before it. The caller commits
 * any pending state first, so even that fallback loses nothing.
 */
export async function gitRevert(
  memoryDir: string,
  target: HistoryEntry,
  options: { now?: Clock } = {},
): Promise<HistoryEntry | null> {
  const full = (await git(memoryDir, ["rev-parse", target.id])).trim();
  const parent = await runGit(memoryDir, ["rev-parse", "--verify", "-q", `${full}^`]);
  // The first commit has no parent to return to: everything it holds was added by it.
  const reverted =
    parent.code === 0 ? await runGit(memoryDir, ["revert", "--no-commit", "--no-edit", full], options) : null;
  if (reverted === null) {
    for (const change of target.changes) await fs.rm(path.join(memoryDir, change.file), { force: true });
  } else if (reverted.code !== 0) {
    await runGit(memoryDir, ["revert", "--abort"]);
    for (const change of target.changes) {
      if (change.change === "added") await fs.rm(path.join(memoryDir, change.file), { force: true });
      else await git(memoryDir, ["checkout", `${full}^`, "--", change.file]);
    }
  }
  return gitCommit(memoryDir, "undo", `${target.kind}: ${target.message}`, {
    body: `Undoes: ${full}`,
    now: options.now,
  });
}

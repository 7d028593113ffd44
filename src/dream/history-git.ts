import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { processEnv } from "../config.ts";
import { MemdirError } from "../errors.ts";
import { writeFileAtomic } from "../memdir/atomic.ts";
import { isMemoryFileName } from "../memdir/scan.ts";
import { removeMemoryIfPresent, writeMemoryText } from "../memdir/write.ts";
import type { Clock } from "../types.ts";
import {
  type FileChange,
  type HistoryEntry,
  type HistoryKind,
  parseKindPrefix,
  restoreOrder,
} from "./history-types.ts";

// Dot-files are memdir's own state (locks, proposals, the journal, the project marker): never history.
const EXCLUDES = ".*\n*.tmp\n";

/**
 * True when a `git` executable runs here. Probed on every call (~20 ms on a loaded box), not
 * remembered: a history operation asks once or twice, and no process-wide state is kept.
 */
export function gitAvailable(): boolean {
  return spawnSync("git", ["--version"], { stdio: "ignore" }).status === 0;
}

/**
 * The whole repository config memdir runs git with, written over whatever `.git/config` holds
 * before every git call. Repository-local config can make git run programs (`core.fsmonitor`,
 * `core.hooksPath`, `core.pager`, `core.sshCommand`, filter and diff drivers, aliases,
 * `include.path`), and `.git/config` sits inside the memory dir, where an agent or a copied
 * file could have planted one (docs/design.md#history): memdir never runs git with a config it did not write.
 */
const REPOSITORY_CONFIG = [
  "[core]",
  "\trepositoryformatversion = 0",
  "\tfilemode = true",
  "\tbare = false",
  "\tlogallrefupdates = true",
  "\tautocrlf = false",
  "\tfsmonitor = false",
  "\thooksPath = /dev/null",
  "[user]",
  "\tname = memdir",
  "\temail = memdir@localhost",
  "[commit]",
  "\tgpgsign = false",
  "",
].join("\n");

/**
 * Settings passed on git's command line as well: they win over every config file, so even a
 * config changed between {@link pinRepositoryConfig} and git reading it cannot run a program.
 */
const COMMAND_LINE_CONFIG = [
  "core.quotepath=false",
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.pager=cat",
  "core.editor=true",
  "core.sshCommand=false",
  "core.askPass=false",
  "core.attributesFile=/dev/null",
  "diff.external=",
  "credential.helper=",
  "protocol.allow=never",
].flatMap((setting) => ["-c", setting]);

/**
 * Makes `.git` safe to run git in: a real folder (not a symbolic link, not a `gitdir:` file),
 * without a `commondir` that would send git to another repository's config, holding exactly
 * {@link REPOSITORY_CONFIG}.
 */
async function pinRepositoryConfig(memoryDir: string): Promise<void> {
  const gitDir = path.join(memoryDir, ".git");
  const stat = await fs.lstat(gitDir).catch(() => null);
  if (stat === null) return;
  if (!stat.isDirectory())
    throw new MemdirError(
      "io",
      `history: ${gitDir} is not a folder; memdir runs git only in its own repository`,
    );
  if (await fs.lstat(path.join(gitDir, "commondir")).catch(() => null))
    throw new MemdirError(
      "io",
      `history: ${path.join(gitDir, "commondir")} points git at another repository; memdir refuses to run git there (remove the file)`,
    );
  const configPath = path.join(gitDir, "config");
  const current = await fs.readFile(configPath, "utf8").catch(() => null);
  if (current !== REPOSITORY_CONFIG) await writeFileAtomic(configPath, REPOSITORY_CONFIG);
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
async function runGit(memoryDir: string, args: string[], options: { now?: Clock } = {}): Promise<GitResult> {
  await pinRepositoryConfig(memoryDir);
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(processEnv())) if (!key.startsWith("GIT_")) env[key] = value;
  Object.assign(env, {
    GIT_DIR: path.join(memoryDir, ".git"),
    GIT_WORK_TREE: memoryDir,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: process.platform === "win32" ? "NUL" : "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    LC_ALL: "C",
  });
  if (options.now) {
    const date = `@${Math.floor(options.now() / 1000)} +0000`;
    env.GIT_AUTHOR_DATE = date;
    env.GIT_COMMITTER_DATE = date;
  }
  return new Promise((resolve, reject) => {
    // No hooks (a hook file planted in .git/hooks must never run on our commits), no pager, no
    // fsmonitor, no external programs: see COMMAND_LINE_CONFIG.
    const child = spawn("git", ["--no-pager", ...COMMAND_LINE_CONFIG, ...args], {
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
  // The local identity and settings come from REPOSITORY_CONFIG, written before every git call.
  await pinRepositoryConfig(memoryDir);
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
  options: { body?: string; now?: Clock; allowEmpty?: boolean } = {},
): Promise<HistoryEntry | null> {
  await initGitHistory(memoryDir);
  await git(memoryDir, ["add", "-A"]);
  const staged = await runGit(memoryDir, ["diff", "--cached", "--quiet"]);
  // A brand-new repository has no HEAD: `diff --cached` then compares with nothing and says "changed" when files exist.
  if (staged.code === 0 && !options.allowEmpty) return null;
  const full = options.body ? `${kind}: ${message}\n\n${options.body}` : `${kind}: ${message}`;
  const empty = options.allowEmpty ? ["--allow-empty"] : [];
  const commitResult = await runGit(
    memoryDir,
    ["commit", "-q", "--no-verify", ...empty, "-m", full],
    options,
  );
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
 * Reverts one commit as a new commit (history is never rewritten). Each file the commit changed
 * is merged three ways (`git merge-file`: base = the file after the commit, ours = the file now,
 * theirs = the file before it), so later, unrelated edits to the same file (a line added to
 * `MEMORY.md` since) are kept; when a file conflicts, it gets its version from before the
 * commit. The results are written through the single writer (path and memory-file checks, atomic,
 * under the writer lock the caller holds), `MEMORY.md` last; git never writes the work tree. The
 * caller commits any pending state first, so even the fallback loses nothing.
 */
export async function gitRevert(
  memoryDir: string,
  target: HistoryEntry,
  options: { now?: Clock } = {},
): Promise<HistoryEntry | null> {
  const full = (await git(memoryDir, ["rev-parse", target.id])).trim();
  const ordered = restoreOrder(target.changes);
  for (const change of ordered) {
    if (!isMemoryFileName(change.file) && change.file !== "MEMORY.md") continue; // not memdir's to restore
    const before = await fileAt(memoryDir, `${full}^`, change.file);
    if (before === null) {
      await removeMemoryIfPresent(memoryDir, change.file);
      continue;
    }
    const after = await fileAt(memoryDir, full, change.file);
    const now = await fs.readFile(path.join(memoryDir, change.file), "utf8").catch(() => null);
    const merged =
      after === null || now === null ? before : await mergeThreeWays(memoryDir, now, after, before);
    await writeMemoryText(memoryDir, change.file, merged ?? before);
  }
  return gitCommit(memoryDir, "undo", `${target.kind}: ${target.message}`, {
    body: `Undoes: ${full}`,
    now: options.now,
  });
}

/** The text of `file` at commit `revision`, or null when it did not exist there (or there is no such commit). */
async function fileAt(memoryDir: string, revision: string, file: string): Promise<string | null> {
  const result = await runGit(memoryDir, ["show", `${revision}:${file}`]);
  return result.code === 0 ? result.stdout : null;
}

/** `git merge-file -p ours base theirs` on temp files: the merged text, or null on a conflict. */
async function mergeThreeWays(
  memoryDir: string,
  ours: string,
  base: string,
  theirs: string,
): Promise<string | null> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "memdir-undo-"));
  try {
    const files = ["ours", "base", "theirs"].map((name) => path.join(dir, name));
    await Promise.all([ours, base, theirs].map((text, i) => fs.writeFile(files[i], text)));
    const result = await runGit(memoryDir, ["merge-file", "-p", "--quiet", ...files]);
    return result.code === 0 ? result.stdout : null;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

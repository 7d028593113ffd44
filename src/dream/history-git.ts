import { spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { MemdirError } from "../errors.ts";
import { takeLease } from "../memdir/fs/lease.ts";
import {
  type GitRepository,
  type GitResult,
  housekeepIfDue,
  git as repositoryGit,
  runGit as runRepositoryGit,
} from "../memdir/location/git.ts";
import type { Clock } from "../types.ts";
import {
  type EntryVersions,
  type FileChange,
  type HistoryEntry,
  type HistoryKind,
  parseKindPrefix,
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

/** The memory dir's own history repository, run through the one hardened git wrapper (src/memdir/location/git.ts). */
function historyRepository(memoryDir: string): GitRepository {
  return { gitDir: path.join(memoryDir, ".git"), workTree: memoryDir, label: "history" };
}

function runGit(memoryDir: string, args: string[], options: { now?: Clock } = {}): Promise<GitResult> {
  return runRepositoryGit(historyRepository(memoryDir), args, options);
}

function git(
  memoryDir: string,
  args: string[],
  options: { now?: Clock; input?: Uint8Array } = {},
): Promise<string> {
  return repositoryGit(historyRepository(memoryDir), args, options);
}

/** True when the memory dir has its own repository. */
export async function gitHistoryExists(memoryDir: string): Promise<boolean> {
  return fs
    .stat(path.join(memoryDir, ".git"))
    .then((s) => s.isDirectory())
    .catch(() => false);
}

/**
 * Creates the repository (once) with a local identity: no global git config is needed. It is
 * made in a dot-folder of the memory dir and renamed into place, so a `.git` there is always
 * whole: two writers starting the history at once (an agent session's "remember …" and its
 * model's save) each saw the other's `.git` half-made, and `git add` found no repository in it
 * (test/dream/history.test.ts). A `.git` without `HEAD` (an init cut short) is finished in place.
 */
export async function initGitHistory(memoryDir: string): Promise<void> {
  const head = await fs.stat(path.join(memoryDir, ".git", "HEAD")).then(
    (stat) => stat.isFile(),
    () => false,
  );
  if (head) return;
  await fs.mkdir(memoryDir, { recursive: true });
  if (await gitHistoryExists(memoryDir)) {
    await makeRepository(memoryDir);
    return;
  }
  // A dot-folder: scans and the history's own `add -A` (EXCLUDES) leave it alone meanwhile.
  const aside = await fs.mkdtemp(path.join(memoryDir, ".history-init-"));
  try {
    await makeRepository(aside);
    await fs.rename(path.join(aside, ".git"), path.join(memoryDir, ".git")).catch((error: unknown) => {
      // Another writer's repository took the place first: it is whole, and this one goes.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
    });
  } finally {
    await fs.rm(aside, { recursive: true, force: true });
  }
}

/** `git init` in `dir` (again, for a `.git` cut short), with memdir's excludes. */
async function makeRepository(dir: string): Promise<void> {
  await git(dir, ["init", "-q"]);
  // The local identity and settings come from REPOSITORY_CONFIG, written before every git call.
  await runGit(dir, ["rev-parse", "--git-dir"]);
  await fs.mkdir(path.join(dir, ".git", "info"), { recursive: true });
  await fs.writeFile(path.join(dir, ".git", "info", "exclude"), EXCLUDES);
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
  // One commit at a time in a history: a writer that records without the writer lock (a
  // consolidation or an extraction, which must not block saves) committing beside a save
  // made one of them fail on git's index.lock, and a save that failed to record was not saved
  // (test/dream/history.test.ts). Its own lease, held only for the commit's few git calls.
  const lease = await takeLease(path.join(memoryDir, ".git", COMMIT_LOCK), {
    staleMs: COMMIT_LOCK_STALE_MS,
    timeoutMs: COMMIT_LOCK_STALE_MS,
  });
  let entry: HistoryEntry | null;
  try {
    entry = await commitNow(memoryDir, kind, message, options);
  } finally {
    await lease.release();
  }
  // What git would have started after the commit, when it has work (housekeepIfDue): after the
  // lease, so a maintenance run never keeps another writer's commit waiting.
  if (entry !== null) await housekeepIfDue(historyRepository(memoryDir)).catch(() => undefined);
  return entry;
}

/** The lease file of {@link gitCommit}, inside `.git` (git leaves files it does not know alone). */
const COMMIT_LOCK = "memdir-commit.lock";
/** A commit takes well under a second; a holder silent this long is gone. */
const COMMIT_LOCK_STALE_MS = 60_000;

async function commitNow(
  memoryDir: string,
  kind: HistoryKind,
  message: string,
  options: { body?: string; now?: Clock; allowEmpty?: boolean },
): Promise<HistoryEntry | null> {
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

/**
 * Stores `pack` (a git pack of blobs another of memdir's repositories holds: a sync's clone) in
 * the history's object store, so the next `add -A` finds each pulled file's blob there instead of
 * compressing and writing it again: at 2,000 pulled memories the history's `add` took ~0.8 s of a
 * first pull, ~0.1 s with the pack (docs/benchmarks.md#sync). `index-pack` checks every object.
 */
export async function gitImportPack(memoryDir: string, pack: Uint8Array): Promise<void> {
  await initGitHistory(memoryDir);
  await git(memoryDir, ["index-pack", "--stdin", "--strict"], { input: pack });
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
    const command = /^Command: (.+)$/m.exec(body)?.[1];
    const mark = /^Mark: (.+)$/m.exec(body)?.[1];
    entries.push({
      id: hash.slice(0, 12),
      kind,
      message,
      at: new Date(Number(seconds) * 1000).toISOString(),
      changes: parseNameStatus(rest),
      ...(undoes ? { undoes: undoes.slice(0, 12) } : {}),
      ...(command ? { command } : {}),
      ...(mark ? { mark } : {}),
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
 * The text of each file the entry with the full hash `full` changed, just before it (its parent commit) and just after it
 * (the commit itself), for the undo plan (`undo-plan.ts`): what an undo restores and what the file must still
 * hold for the undo to be exact (docs/design.md#undo).
 */
export function gitVersions(memoryDir: string, full: string): (file: string) => Promise<EntryVersions> {
  return async (file) => ({
    before: await fileAt(memoryDir, `${full}^`, file),
    after: await fileAt(memoryDir, full, file),
  });
}

/** The full hash an entry id (a 12-character prefix) names. */
export async function gitFullHash(memoryDir: string, id: string): Promise<string> {
  return (await git(memoryDir, ["rev-parse", id])).trim();
}

/** The text of `file` at commit `revision`, or null when it did not exist there (or there is no such commit). */
async function fileAt(memoryDir: string, revision: string, file: string): Promise<string | null> {
  const result = await runGit(memoryDir, ["show", `${revision}:${file}`]);
  return result.code === 0 ? result.stdout : null;
}

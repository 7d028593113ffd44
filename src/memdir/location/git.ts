import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { processEnv } from "../../config.ts";
import { MemdirError } from "../../errors.ts";
import type { Clock } from "../../types.ts";
import { writeFileAtomic } from "../fs/atomic.ts";

// The one way memdir runs git: the history repository inside a memory dir (src/dream/history-git.ts)
// and the sync clone (src/sync/) both go through it (docs/design.md#history, docs/design.md#sync).

/** A repository memdir owns: its `.git` folder and the work tree git may write. */
export interface GitRepository {
  gitDir: string;
  workTree: string;
  /** Names the subsystem in error messages (`history`, `sync`). */
  label: string;
}

/**
 * The whole repository config memdir runs git with, written over whatever `.git/config` holds
 * before every git call. Repository-local config can make git run programs (`core.fsmonitor`,
 * `core.hooksPath`, `core.pager`, `core.sshCommand`, filter and diff drivers, aliases,
 * `include.path`), and a `.git/config` could have been planted (docs/design.md#history): memdir
 * never runs git with a config it did not write. The sync clone keeps no remote in it either: the
 * URL is given on each fetch and push.
 */
export const REPOSITORY_CONFIG = [
  "[core]",
  "\trepositoryformatversion = 0",
  "\tfilemode = true",
  "\tbare = false",
  "\tlogallrefupdates = true",
  "\tautocrlf = false",
  "\tsymlinks = false",
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
const COMMON_COMMAND_LINE = [
  "core.quotepath=false",
  // A link in a remote (or planted in a history) is checked out as a small plain file holding
  // the link's text, never as a link that a later read or write would follow (docs/design.md#sync).
  "core.symlinks=false",
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.pager=cat",
  "core.editor=true",
  "core.attributesFile=/dev/null",
  "diff.external=",
  // No `maintenance run --auto` process after each commit and fetch: `housekeepIfDue` makes git's
  // own decision from two folder listings and starts it only when it has something to do.
  "maintenance.auto=false",
];

/** Local-only calls: no transport, no credentials, no ssh. */
const LOCAL_COMMAND_LINE = [
  ...COMMON_COMMAND_LINE,
  "core.sshCommand=false",
  "core.askPass=false",
  "credential.helper=",
  "protocol.allow=never",
].flatMap((setting) => ["-c", setting]);

/**
 * Fetch and push of the sync clone: the user's own git config is read (their credential helpers,
 * SSH, proxies: memdir stores no credentials, docs/design.md#sync), the repository's is still the
 * pinned one, the transports are the usual four, and incoming objects are checked.
 */
const NETWORK_COMMAND_LINE = [
  ...COMMON_COMMAND_LINE,
  "protocol.allow=never",
  "protocol.file.allow=always",
  "protocol.ssh.allow=always",
  "protocol.https.allow=always",
  "protocol.http.allow=always",
  "fetch.fsckObjects=true",
  "transfer.fsckObjects=true",
].flatMap((setting) => ["-c", setting]);

/**
 * Makes `.git` safe to run git in: a real folder (not a symbolic link, not a `gitdir:` file),
 * without a `commondir` that would send git to another repository's config, holding exactly
 * {@link REPOSITORY_CONFIG}.
 */
async function pinRepositoryConfig(repository: GitRepository): Promise<void> {
  const { gitDir, label } = repository;
  const stat = await fs.lstat(gitDir).catch(() => null);
  if (stat === null) return;
  if (!stat.isDirectory())
    throw new MemdirError(
      "io",
      `${label}: ${gitDir} is not a folder; memdir runs git only in its own repository`,
    );
  if (await fs.lstat(path.join(gitDir, "commondir")).catch(() => null))
    throw new MemdirError(
      "io",
      `${label}: ${path.join(gitDir, "commondir")} points git at another repository; memdir refuses to run git there (remove the file)`,
    );
  const configPath = path.join(gitDir, "config");
  const current = await fs.readFile(configPath, "utf8").catch(() => null);
  if (current !== REPOSITORY_CONFIG) await writeFileAtomic(configPath, REPOSITORY_CONFIG);
}

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunGitOptions {
  /** Stamps commits with this clock. */
  now?: Clock;
  /** Written to git's stdin (text, or a pack's bytes). */
  input?: string | Uint8Array;
  /** A fetch or push: the user's git config and the usual transports are allowed. */
  network?: boolean;
  /** Kills git when aborted. */
  signal?: AbortSignal;
  /** Called once git has started (or failed to start): work meant to overlap with it may begin. */
  onStarted?: () => void;
}

/**
 * Runs git on one of memdir's own repositories only. GIT_DIR and GIT_WORK_TREE are explicit so
 * git never walks up into an enclosing repository; inherited GIT_* variables (from a hook) are
 * dropped; the user's global and system config are ignored except for fetch and push, so
 * signing, hooks or autocrlf settings cannot change what we record.
 */
export async function runGit(
  repository: GitRepository,
  args: string[],
  options: RunGitOptions = {},
): Promise<GitResult> {
  const result = await spawnPinned(repository, args, options);
  return { ...result, stdout: result.stdout.toString("utf8") };
}

/** One git call in `repository` with its config pinned and memdir's environment and command line. */
async function spawnPinned(
  repository: GitRepository,
  args: string[],
  options: RunGitOptions,
): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  await pinRepositoryConfig(repository);
  const env = gitEnvironment(repository.gitDir, repository.workTree, Boolean(options.network));
  if (options.now) {
    const date = `@${Math.floor(options.now() / 1000)} +0000`;
    env.GIT_AUTHOR_DATE = date;
    env.GIT_COMMITTER_DATE = date;
  }
  const commandLine = options.network ? NETWORK_COMMAND_LINE : LOCAL_COMMAND_LINE;
  return spawnGit(repository.workTree, env, [...commandLine, ...args], repository.label, options);
}

/**
 * {@link runGit} for output that is bytes, not text (`cat-file --batch`: sizes count bytes), with
 * the same pinned config and environment; throws `MemdirError("io")` on a non-zero exit.
 */
export async function gitBytes(
  repository: GitRepository,
  args: string[],
  options: RunGitOptions = {},
): Promise<Buffer> {
  const result = await spawnPinned(repository, args, options);
  if (result.code !== 0)
    throw new MemdirError(
      "io",
      `${repository.label}: git ${args[0]} failed in ${repository.workTree}: ${result.stderr.trim()}`,
    );
  return result.stdout;
}

/**
 * A read-only command (`rev-list`) in a repository memdir does not own, the project's own: its
 * config is not pinned (it is the project's), but the user's and system config are ignored and the
 * command-line guards hold, so nothing a config names runs (docs/design.md#project-identity).
 */
export async function runProjectGit(gitDir: string, args: string[]): Promise<GitResult> {
  const env = gitEnvironment(gitDir, undefined, false);
  const result = await spawnGit(path.dirname(gitDir), env, [...LOCAL_COMMAND_LINE, ...args], "project", {});
  return { ...result, stdout: result.stdout.toString("utf8") };
}

function gitEnvironment(gitDir: string, workTree: string | undefined, network: boolean): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(processEnv())) if (!key.startsWith("GIT_")) env[key] = value;
  Object.assign(env, { GIT_DIR: gitDir, GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat", LC_ALL: "C" });
  if (workTree !== undefined) env.GIT_WORK_TREE = workTree;
  if (!network) {
    env.GIT_CONFIG_NOSYSTEM = "1";
    env.GIT_CONFIG_GLOBAL = process.platform === "win32" ? "NUL" : "/dev/null";
  }
  return env;
}

function spawnGit(
  cwd: string,
  env: NodeJS.ProcessEnv,
  args: string[],
  label: string,
  options: RunGitOptions,
): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    // No hooks (a hook file planted in .git/hooks must never run on our commits), no pager, no
    // fsmonitor, no external programs: see the command-line settings above.
    const child = spawn("git", ["--no-pager", ...args], {
      cwd,
      env,
      signal: options.signal,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    // Bytes until git exits: decoded once, whole, by the caller that wants text.
    const stdout: Buffer[] = [];
    let stderr = "";
    child.stdout?.on("data", (d: Buffer) => {
      stdout.push(d);
    });
    child.stderr?.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    if (options.onStarted) {
      child.once("spawn", options.onStarted);
      child.once("error", options.onStarted);
    }
    child.on("error", (error) => {
      if (options.signal?.aborted) reject(options.signal.reason);
      else reject(new MemdirError("io", `${label}: git failed to start`, { cause: error }));
    });
    child.on("close", (code) => resolve({ code: code ?? 1, stdout: Buffer.concat(stdout), stderr }));
    if (options.input !== undefined) {
      child.stdin?.on("error", () => undefined);
      child.stdin?.end(options.input);
    }
  });
}

/** git's `gc.auto` (6,700 loose objects) as it samples them: entries of `objects/17` (gc.c). */
const LOOSE_IN_SAMPLE_LIMIT = Math.ceil(6700 / 256);
/** git's `gc.autoPackLimit`. */
const PACK_LIMIT = 50;

/**
 * Runs `git maintenance run --auto` in `repository` when git would find work for it: more loose
 * objects than `gc.auto` (estimated, as git does, from the folder `objects/17`) or more packs than
 * `gc.autoPackLimit`. git used to start that process itself after every commit and fetch
 * (~8 ms each, on the path of a one-change sync: docs/design.md#sync-stat-cache); the listings cost a
 * fraction of a millisecond. The maintenance itself is git's: a `gc --auto` it detaches.
 */
export async function housekeepIfDue(repository: GitRepository): Promise<void> {
  const objects = path.join(repository.gitDir, "objects");
  const [sample, packs] = await Promise.all([
    fs.readdir(path.join(objects, "17")).catch(() => [] as string[]),
    fs.readdir(path.join(objects, "pack")).catch(() => [] as string[]),
  ]);
  const loose = sample.filter((name) => /^[0-9a-f]{38}$/.test(name)).length;
  const packed = packs.filter((name) => name.endsWith(".pack")).length;
  if (loose <= LOOSE_IN_SAMPLE_LIMIT && packed <= PACK_LIMIT) return;
  await runGit(repository, ["maintenance", "run", "--auto", "--quiet"]);
}

/** {@link runGit}, throwing `MemdirError("io")` with git's message on a non-zero exit. */
export async function git(
  repository: GitRepository,
  args: string[],
  options: RunGitOptions = {},
): Promise<string> {
  const result = await runGit(repository, args, options);
  if (result.code !== 0)
    throw new MemdirError(
      "io",
      `${repository.label}: git ${args[0]} failed in ${repository.workTree}: ${result.stderr.trim()}`,
    );
  return result.stdout;
}

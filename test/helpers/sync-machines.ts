import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { sanitizeProjectPath } from "../../src/memdir/location/paths.ts";
import type { SyncTarget } from "../../src/sync/run.ts";
import { type CliResult, runCli, runCliInProcess } from "./cli.ts";
import { memory } from "./memory.ts";
import { makeTempDir } from "./temp.ts";

// Two machines for sync tests: two temp HOMEs, each with a real clone of one project at a
// different path (origin spelled `git@github.com:acme/shop.git` on one and
// `https://github.com/acme/shop` on the other, never fetched), and a local bare repository as the
// memory remote (docs/sync.md).

/**
 * Runs git with no user or system config (tests never depend on the developer's git setup);
 * `input` goes to its stdin (bytes, for `hash-object --stdin` of what git itself would refuse).
 */
export function gitIn(cwd: string, args: string[], input?: Buffer): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    ...(input ? { input } : {}),
    env: {
      PATH: process.env.PATH ?? "",
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
    stdio: [input ? "pipe" : "ignore", "pipe", "pipe"],
  });
}

export interface Machine {
  home: string;
  project: string;
  memoryDir: string;
  /**
   * Runs the CLI on this machine: in this process (`runCliInProcess`), or as a child process
   * when `process` is set or `timeoutMs` is given, where the process is the point (a time bound,
   * two syncs at once).
   */
  memdir(
    args: string[],
    options?: { env?: Record<string, string>; input?: string; timeoutMs?: number; process?: boolean },
  ): Promise<CliResult>;
  /** Writes a memory file by hand (as an editor would). */
  write(file: string, text: string): void;
  read(file: string): string | null;
  /** Memory file names, sorted (MEMORY.md and dot-paths left out). */
  files(): string[];
}

export interface World {
  dir: string;
  remoteDir: string;
  remoteUrl: string;
  a: Machine;
  b: Machine;
  /** A third machine's view of the remote: a fresh clone's files under the project key. */
  remoteFiles(): string[];
  /** The text of a file in the remote's main branch, or null. */
  remoteText(file: string): string | null;
}

export const PROJECT_KEY = "github.com/acme/shop";

function machine(home: string, project: string): Machine {
  const memoryDir = path.join(home, ".claude", "projects", sanitizeProjectPath(project), "memory");
  return {
    home,
    project,
    memoryDir,
    memdir: (args, options = {}) =>
      options.process || options.timeoutMs !== undefined
        ? runCli(args, {
            home,
            cwd: project,
            env: options.env,
            input: options.input,
            timeoutMs: options.timeoutMs ?? 60_000,
          })
        : runCliInProcess(args, { home, cwd: project, env: options.env, input: options.input }),
    write(file, text) {
      fs.mkdirSync(path.dirname(path.join(memoryDir, file)), { recursive: true });
      fs.writeFileSync(path.join(memoryDir, file), text);
    },
    read(file) {
      try {
        return fs.readFileSync(path.join(memoryDir, file), "utf8");
      } catch {
        return null;
      }
    },
    files() {
      return memoryFilesBelow(memoryDir).sort();
    },
  };
}

/**
 * The memory files below `dir` ("/" separators; MEMORY.md and dot-paths left out). Dot-folders are
 * never entered: a background sync's history makes and removes `.history-init-*` there, and a
 * recursive readdir that met one half-removed failed with ENOENT; a folder gone meanwhile is empty.
 */
function memoryFilesBelow(dir: string, prefix = ""): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(path.join(dir, prefix), { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return entries.flatMap((entry) => {
    if (entry.name.startsWith(".")) return [];
    const file = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) return memoryFilesBelow(dir, file);
    return file.endsWith(".md") && entry.name !== "MEMORY.md" ? [file] : [];
  });
}

/** A new world: the remote, and machines a and b with the project cloned at different paths. */
export function makeWorld(): World {
  const dir = makeTempDir("memdir-sync-");
  const remoteDir = path.join(dir, "memory-remote.git");
  gitIn(dir, ["init", "-q", "--bare", remoteDir]);
  const homeA = path.join(dir, "home-a");
  const homeB = path.join(dir, "home-b");
  const projectA = path.join(homeA, "work", "shop");
  const projectB = path.join(homeB, "code", "shop-clone");
  fs.mkdirSync(projectA, { recursive: true });
  fs.mkdirSync(path.dirname(projectB), { recursive: true });
  gitIn(projectA, ["init", "-q"]);
  fs.writeFileSync(path.join(projectA, "README.md"), "shop\n");
  gitIn(projectA, ["add", "README.md"]);
  gitIn(projectA, ["commit", "-q", "-m", "first"]);
  gitIn(dir, ["clone", "-q", projectA, projectB]);
  gitIn(projectA, ["remote", "add", "origin", "git@github.com:acme/shop.git"]);
  gitIn(projectB, ["remote", "set-url", "origin", "https://github.com/acme/shop"]);
  const remoteUrl = `file://${remoteDir}`;
  const peek = () => {
    const view = path.join(dir, `peek-${Date.now()}-${Math.random().toString(36).slice(2)}`);
    gitIn(dir, ["clone", "-q", "-b", "main", remoteDir, view]);
    return view;
  };
  return {
    dir,
    remoteDir,
    remoteUrl,
    a: machine(homeA, projectA),
    b: machine(homeB, projectB),
    remoteFiles() {
      const view = peek();
      const folder = path.join(view, PROJECT_KEY);
      if (!fs.existsSync(folder)) return [];
      return (fs.readdirSync(folder, { recursive: true }) as string[])
        .map((f) => f.split(path.sep).join("/"))
        .filter((f) => f.includes("."))
        .sort();
    },
    remoteText(file) {
      try {
        return gitIn(remoteDir, ["show", `main:${PROJECT_KEY}/${file}`]);
      } catch {
        return null;
      }
    },
  };
}

/**
 * Another project on machine `m` (its own repository, origin `git@github.com:acme/<name>.git`,
 * so its key is `github.com/acme/<name>`): the same HOME, so the same memory remote and the same
 * clone under `<root>/sync/`, with its own folder in the remote.
 */
export function otherProject(m: Machine, name: string): Machine {
  const project = path.join(m.home, "work", name);
  fs.mkdirSync(project, { recursive: true });
  gitIn(project, ["init", "-q"]);
  fs.writeFileSync(path.join(project, "README.md"), `${name}\n`);
  gitIn(project, ["add", "README.md"]);
  gitIn(project, ["commit", "-q", "-m", name]);
  gitIn(project, ["remote", "add", "origin", `git@github.com:acme/${name}.git`]);
  return machine(m.home, project);
}

/** Both machines set the remote with `memdir sync init`. */
export async function initBoth(world: World): Promise<void> {
  for (const m of [world.a, world.b]) {
    const result = await m.memdir(["sync", "init", world.remoteUrl]);
    if (result.code !== 0) throw new Error(`sync init failed: ${result.stderr}`);
  }
}

/** `memdir sync --json` on a machine, parsed; throws with stderr when it fails. */
export async function syncJson(
  m: Machine,
  extra: string[] = [],
): Promise<{
  remote: string;
  pulled: number;
  pushed: number;
  conflicts: string[];
  skipped: { file: string; reason: string }[];
}> {
  const result = await m.memdir(["sync", "--json", ...extra]);
  if (result.code !== 0) throw new Error(`sync failed (${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/**
 * Pushes what `plant` lays out under the project's folder in a fresh clone of the remote, as a
 * teammate would (with plain git, none of memdir's checks).
 */
export function pushAsTeammate(world: World, plant: (folder: string, work: string) => void): void {
  const work = path.join(world.dir, `teammate-${Math.random().toString(36).slice(2)}`);
  gitIn(world.dir, ["clone", "-q", world.remoteDir, work]);
  const remoteHasMain = gitIn(work, ["branch", "-r"]).includes("origin/main");
  gitIn(work, ["checkout", "-q", "-B", "main", ...(remoteHasMain ? ["origin/main"] : [])]);
  fs.mkdirSync(path.join(work, PROJECT_KEY), { recursive: true });
  plant(path.join(work, PROJECT_KEY), work);
  gitIn(work, ["add", "-A"]);
  gitIn(work, ["commit", "-q", "-m", "teammate"]);
  gitIn(work, ["push", "-q", "origin", "HEAD:main"]);
}

export { memory };

/**
 * A second checkout of machine `m`'s project on the same machine (a clone at `~/work/<name>`,
 * origin spelled as `m`'s): the same project key, so the same folder in the remote and the same
 * clone under `<root>/sync/`, but a memory dir of its own, since memory dirs are per path.
 */
export function otherCheckout(m: Machine, name: string): Machine {
  const project = path.join(m.home, "work", name);
  fs.mkdirSync(path.dirname(project), { recursive: true });
  gitIn(path.dirname(project), ["clone", "-q", m.project, project]);
  gitIn(project, ["remote", "set-url", "origin", "git@github.com:acme/shop.git"]);
  return machine(m.home, project);
}

/**
 * Two machines' sync targets for library calls (`syncFolder`): one local bare repository as the
 * remote, project key `github.com/acme/shop`, machine a's memory dir made (empty), b's not yet.
 */
export function twoSyncTargets(prefix: string): { a: SyncTarget; b: SyncTarget } {
  const dir = makeTempDir(prefix);
  const remote = path.join(dir, "remote.git");
  gitIn(dir, ["init", "-q", "--bare", remote]);
  const machine = (name: string): SyncTarget => ({
    root: path.join(dir, name, "root"),
    url: `file://${remote}`,
    key: PROJECT_KEY,
    localDir: path.join(dir, name, "memory"),
    excludeTeam: true,
  });
  const a = machine("a");
  fs.mkdirSync(a.localDir, { recursive: true });
  return { a, b: machine("b") };
}

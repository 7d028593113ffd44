/**
 * Child process of the sync benchmark (docs/design.md#sync). `sync-worker.ts <workDir> <memories> <runs>`
 * makes a memory dir of `memories` generated memories, syncs it once to a local bare repository
 * (`file://`), then times, `runs` times each: a sync with nothing changed, a sync with one memory
 * changed, and beside each, a plain `git pull && git push` of a clone of the same repository (the
 * changed case with its `git commit -am` included; a copy of the repository, so neither sees the
 * other's pushes); then a new machine's first pull of the whole remote into an empty memory dir
 * beside a plain `git clone` of it. Prints one JSON line. The sync is the library call
 * (`syncFolder`) in this process, with the history entry the CLI records for a pull; the plain
 * figures are git run from this process: no Node start-up in either figure.
 *
 * Each sync is also timed as `memdir sync` runs it when the memory helper is running (an agent's
 * hooks start it): with the helper's change watch (src/helper/change-watch.ts), asked over its
 * socket. The helper is the built one (`dist/`, started by `bin/memdir.js helper start` under a
 * HOME of its own), stopped at the end.
 *
 * Optional: `<firstPullRuns>` (default `runs`; 0 leaves the first pull out, its figures null) and
 * `<sourceDir>`, a directory of memories to copy instead of generating them (`npm run bench`
 * passes one made by `../shared/bench/gen-scale.mjs` for the 20,000 rows).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { recordPull, undonePulls } from "../src/dream/history.ts";
import { helperChangeWatch } from "../src/helper/ask.ts";
import { helperPaths } from "../src/helper/paths.ts";
import { type SyncOptions, syncFolder } from "../src/sync/run.ts";
import { startHelper } from "./process.ts";
import { median, round } from "./stats.ts";

const [workDir, countText, runsText, firstPullRunsText, sourceDir] = process.argv.slice(2);
const count = Number(countText);
const runs = Number(runsText);
// At 20,000 a first pull takes minutes a run on this box: `npm run bench` asks for none there.
const firstPullRuns = firstPullRunsText === undefined ? runs : Number(firstPullRunsText);
const remote = path.join(workDir, "remote.git");
const root = path.join(workDir, "root");
const memoryDir = path.join(workDir, "memory");
const plain = path.join(workDir, "plain");
const env = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "b",
  GIT_AUTHOR_EMAIL: "b@b",
  GIT_COMMITTER_NAME: "b",
  GIT_COMMITTER_EMAIL: "b@b",
};
const git = (cwd: string, args: string[]) => execFileSync("git", args, { cwd, env, stdio: "ignore" });

fs.mkdirSync(memoryDir, { recursive: true });
git(workDir, ["init", "-q", "--bare", remote]);
// The memories: a copy of `sourceDir` (a `gen-scale.mjs` directory) when given, else generated here.
const changedFiles: string[] = [];
if (sourceDir !== undefined) {
  // Folders included: gen-scale.mjs puts some memories in sub-folders.
  fs.cpSync(sourceDir, memoryDir, { recursive: true });
  changedFiles.push(
    ...fs.readdirSync(memoryDir).filter((file) => file !== "MEMORY.md" && file.endsWith(".md")),
  );
} else {
  const index: string[] = [];
  for (let i = 0; i < count; i++) {
    const file = `project-note-${i}.md`;
    fs.writeFileSync(
      path.join(memoryDir, file),
      `---\ndescription: generated note ${i} about module ${i % 97}\ntype: project\n---\nThe module ${i % 97} keeps its state in table t${i}; migrations run before deploys.\n`,
    );
    index.push(`- [Note ${i}](${file}) — generated note ${i}`);
    changedFiles.push(file);
  }
  fs.writeFileSync(path.join(memoryDir, "MEMORY.md"), `${index.slice(0, 150).join("\n")}\n`);
}
const target = {
  root,
  url: `file://${remote}`,
  key: "github.com/bench/shop",
  localDir: memoryDir,
  excludeTeam: true,
};
// What `memdir sync` passes: a pull is one history entry (src/cli/commands/upkeep/sync.ts).
const options: SyncOptions = { recordPull, undonePulls };
await syncFolder(target, options);
// The plain figures use a copy of the same repository, so neither side sees the other's pushes.
git(workDir, ["clone", "-q", "--bare", remote, `${remote}-plain`]);
git(workDir, ["clone", "-q", "-b", "main", `${remote}-plain`, plain]);

// The helper, as hooks leave it running, and the options `memdir sync` passes when one runs.
const repoRoot = path.resolve(import.meta.dirname, "..");
const home = path.join(workDir, "home");
fs.mkdirSync(home, { recursive: true });
const helperEnv = { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1" };
const memdirCli = (args: string[]) =>
  execFileSync(process.execPath, [path.join(repoRoot, "bin", "memdir.js"), ...args], {
    env: helperEnv,
    encoding: "utf8",
  });
startHelper(helperEnv);
const helper = helperPaths(home, path.join(repoRoot, "dist", "cli", "main.js"));
const watched: SyncOptions = { ...options, changeWatch: helperChangeWatch(helperEnv, helper) };
if (watched.changeWatch === undefined) throw new Error("bench: no change watch (not Linux?)");
// Its first sync reads the dir and keeps the watch's token; the timed ones ask with it.
await syncFolder(target, watched);

const time = async (work: () => unknown) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};
const figures = {
  noChange: [] as number[],
  oneChanged: [] as number[],
  noChangeWatched: [] as number[],
  noChangeSettled: [] as number[],
  oneChangedWatched: [] as number[],
  plainNoChange: [] as number[],
  plainOneChanged: [] as number[],
  firstPull: [] as number[],
  plainClone: [] as number[],
};
for (let run = 0; run < runs; run++) {
  figures.noChange.push(await time(() => syncFolder(target, options)));
  figures.plainNoChange.push(
    await time(() => {
      git(plain, ["pull", "-q"]);
      git(plain, ["push", "-q"]);
    }),
  );
  figures.noChangeWatched.push(await time(() => syncFolder(target, watched)));
  const file = changedFiles[run];
  fs.appendFileSync(path.join(memoryDir, file), `Changed in run ${run}.\n`);
  figures.oneChanged.push(await time(() => syncFolder(target, options)));
  fs.appendFileSync(path.join(memoryDir, changedFiles[runs + run]), `Changed in run ${run}.\n`);
  figures.oneChangedWatched.push(await time(() => syncFolder(target, watched)));
  fs.appendFileSync(path.join(plain, target.key, file), `Plain change ${run}.\n`);
  figures.plainOneChanged.push(
    await time(() => {
      git(plain, ["commit", "-q", "-am", "one change"]);
      git(plain, ["pull", "-q", "--no-rebase"]);
      git(plain, ["push", "-q"]);
    }),
  );
}
// Nothing changed for longer than the stat cache's racy window (2 s): a sync an hour after the
// last edit. The loop above syncs within a second of its edits, so its files' stats vouch for
// nothing yet; here the first sync reads them once and keeps their stats, and the timed ones
// find the memory dir unchanged by its stats alone (docs/design.md#sync-stat-cache).
await new Promise((resolve) => setTimeout(resolve, 2_100));
await syncFolder(target, options);
for (let run = 0; run < runs; run++)
  figures.noChangeSettled.push(await time(() => syncFolder(target, options)));
for (let run = 0; run < firstPullRuns; run++) {
  const machine = path.join(workDir, `machine-${run}`);
  const fresh = { ...target, root: path.join(machine, "root"), localDir: path.join(machine, "memory") };
  figures.firstPull.push(await time(() => syncFolder(fresh, options)));
  const pulled = fs.readdirSync(fresh.localDir).filter((file) => file.endsWith(".md")).length;
  if (pulled < count) throw new Error(`the first pull wrote ${pulled} of ${count} memories`);
  // `-b main`: the bare remote's HEAD names `master`, which memdir never pushes, so a plain
  // `git clone` checked out nothing and the floor was a fetch alone (×31 where the clone that
  // writes the files gives ×2–3, docs/benchmarks.md#sync).
  const plainClone = path.join(machine, "plain");
  figures.plainClone.push(
    await time(() => git(workDir, ["clone", "-q", "-b", "main", `file://${remote}`, plainClone])),
  );
  const cloned = fs
    .readdirSync(path.join(plainClone, target.key))
    .filter((file) => file.endsWith(".md")).length;
  if (cloned < count) throw new Error(`the plain clone wrote ${cloned} of ${count} memories`);
  fs.rmSync(machine, { recursive: true, force: true });
}
memdirCli(["helper", "stop"]);
const noChangeMs = median(figures.noChange);
const noChangeWatchedMs = median(figures.noChangeWatched);
const noChangeSettledMs = median(figures.noChangeSettled);
const oneChangedWatchedMs = median(figures.oneChangedWatched);
const firstPullMs = firstPullRuns > 0 ? median(figures.firstPull) : null;
const plainCloneMs = firstPullRuns > 0 ? median(figures.plainClone) : null;
const oneChangedMs = median(figures.oneChanged);
const plainNoChangeMs = median(figures.plainNoChange);
const plainOneChangedMs = median(figures.plainOneChanged);
console.log(
  JSON.stringify({
    memories: count,
    runs,
    noChangeMs: round(noChangeMs),
    oneChangedMs: round(oneChangedMs),
    noChangeWatchedMs: round(noChangeWatchedMs),
    noChangeSettledMs: round(noChangeSettledMs),
    oneChangedWatchedMs: round(oneChangedWatchedMs),
    plainNoChangeMs: round(plainNoChangeMs),
    plainOneChangedMs: round(plainOneChangedMs),
    firstPullMs: firstPullMs === null ? null : round(firstPullMs),
    plainCloneMs: plainCloneMs === null ? null : round(plainCloneMs),
    load: os.loadavg().map((value) => round(value)),
    ratios: {
      noChange: round(noChangeMs / plainNoChangeMs),
      oneChanged: round(oneChangedMs / plainOneChangedMs),
      noChangeWatched: round(noChangeWatchedMs / plainNoChangeMs),
      noChangeSettled: round(noChangeSettledMs / plainNoChangeMs),
      oneChangedWatched: round(oneChangedWatchedMs / plainOneChangedMs),
      firstPull: firstPullMs === null || plainCloneMs === null ? null : round(firstPullMs / plainCloneMs),
    },
  }),
);

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it, type TestContext } from "node:test";
import { watchingEnabled } from "../../../src/config.ts";
import { type Memdir, openMemdir } from "../../../src/memdir/instance.ts";
import { scanHeaders } from "../../../src/memdir/scan/scan.ts";
import type { MemoryHeader } from "../../../src/types.ts";
import { runCli } from "../../helpers/cli.ts";
import { memory as memoryText } from "../../helpers/memory.ts";
import { seededRandom } from "../../helpers/random.ts";
import { makeTempDir, writeTree } from "../../helpers/temp.ts";
import { watchUntrusted } from "../../helpers/watch.ts";

// Every write in this file has a length no earlier write had: the header cache is keyed on
// (path, mtime, size), and two same-size writes within one coarse mtime tick would look alike to
// it whether or not the folders are watched. The watch set is what these tests are about.
let writes = 0;
function memory(description: string): string {
  writes++;
  return memoryText(`${description} ${writes}`, "x".repeat(writes), "project");
}

/**
 * Runs the assertions that rescans were served by the watchers, or marks the test skipped, with
 * the reason, where `fs.watch` cannot be trusted (test/helpers/watch.ts); the test's other
 * assertions (every rescan equals a full scan) hold either way and always run.
 */
async function assertWatched(t: TestContext, assertions: () => void): Promise<void> {
  const untrusted = await watchUntrusted();
  if (untrusted) t.skip(`watcher assertions skipped: ${untrusted}`);
  else assertions();
}

/** Everything a caller sees of a header. */
function seen(headers: readonly MemoryHeader[]) {
  return headers.map((h) => ({
    file: h.file,
    path: h.path,
    mtimeMs: h.mtimeMs,
    size: h.size,
    type: h.type,
    description: h.description,
  }));
}

/** A rescan through the watch set must equal a fresh full scan with no state at all. */
async function assertSameAsFullScan(dir: string, memdir: Memdir, what: string): Promise<void> {
  const watched = await memdir.scan();
  const fresh = await scanHeaders(dir, { cache: null });
  assert.deepEqual(seen(watched), seen(fresh), `the watched rescan differs from a full scan ${what}`);
}

function runInChild(script: string): void {
  const child = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
  assert.equal(child.status, 0, child.stderr);
}

/** A small deterministic random source, so a failing round can be replayed. */
function randomSource(seed: number): (below: number) => number {
  const random = seededRandom(seed);
  return (below) => Math.floor(random() * below);
}

/** One file-system step, run either in this process or in a child (the same code both ways). */
type Step =
  | { op: "write"; file: string; content: string }
  | { op: "rename"; from: string; to: string }
  | { op: "rm"; file: string }
  | { op: "utimes"; file: string; seconds: number }
  | { op: "symlink"; target: string; file: string }
  | { op: "link"; existing: string; file: string };

/**
 * Applies `steps`; takes its modules as arguments so that a child process can run the very same
 * function from its source text. Steps made moot by earlier ones (a file already gone) are skipped.
 */
function applyStepsWith(fileSystem: typeof fs, paths: typeof path, steps: Step[]): void {
  for (const step of steps) {
    try {
      if (step.op === "write") {
        fileSystem.mkdirSync(paths.dirname(step.file), { recursive: true });
        fileSystem.writeFileSync(step.file, step.content);
      } else if (step.op === "rename") {
        fileSystem.mkdirSync(paths.dirname(step.to), { recursive: true });
        fileSystem.renameSync(step.from, step.to);
      } else if (step.op === "rm") fileSystem.rmSync(step.file, { recursive: true, force: true });
      else if (step.op === "utimes") fileSystem.utimesSync(step.file, step.seconds, step.seconds);
      else if (step.op === "symlink") fileSystem.symlinkSync(step.target, step.file);
      else fileSystem.linkSync(step.existing, step.file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "";
      if (!["ENOENT", "EEXIST", "ENOTDIR", "EISDIR", "ENOTEMPTY", "EINVAL", "ELOOP"].includes(code))
        throw error;
    }
  }
}

function applyInChild(steps: Step[]): void {
  runInChild(
    `(${applyStepsWith.toString()})(require("node:fs"), require("node:path"), ${JSON.stringify(steps)})`,
  );
}

/** Every entry under `dir` (relative), dot-folders included, without following symlinks. */
function entries(dir: string): { files: string[]; folders: string[] } {
  const files: string[] = [];
  const folders: string[] = [];
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const name = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        folders.push(name);
        walk(name);
      } else files.push(name);
    }
  };
  walk("");
  return { files: files.sort(), folders: folders.sort() };
}

/** A random change to the tree under `dir`, as steps; `outside` is a folder outside it. */
function randomChange(
  dir: string,
  outside: string,
  pick: (below: number) => number,
  round: number,
  hardLinks: boolean,
): Step[] {
  const { files, folders } = entries(dir);
  const choose = <T>(items: readonly T[]): T | undefined =>
    items.length > 0 ? items[pick(items.length)] : undefined;
  const folder = () => choose(["", "", ...folders]) ?? "";
  const at = (...parts: string[]) => path.join(dir, ...parts);
  const memoryFiles = files.filter((f) => f.endsWith(".md"));
  const file = choose(memoryFiles);
  const name = `r${round}-${pick(1000)}.md`;
  switch (pick(hardLinks ? 17 : 15)) {
    case 0:
      return [{ op: "write", file: at(folder(), name), content: memory("added") }];
    case 1:
    case 2:
      return file ? [{ op: "write", file: at(file), content: memory("edited in place") }] : [];
    case 3:
      return file ? [{ op: "rm", file: at(file) }] : [];
    case 4:
      return file ? [{ op: "rename", from: at(file), to: at(folder(), name) }] : [];
    case 5: {
      // The single writer's way: a dot-named temp file in the same folder, renamed over the target.
      if (!file) return [];
      const temp = at(path.dirname(file), `.${path.basename(file)}.4242.${round}.memdir-tmp`);
      return [
        { op: "write", file: temp, content: memory("replaced atomically") },
        { op: "rename", from: temp, to: at(file) },
      ];
    }
    case 6:
      return file ? [{ op: "utimes", file: at(file), seconds: 1_700_000_000 + pick(50) * 3600 }] : [];
    case 7: {
      const sub = path.join(folder(), `sub${round}`);
      return [
        { op: "write", file: at(sub, "one.md"), content: memory("in a new folder") },
        { op: "write", file: at(sub, "deeper", "two.md"), content: memory("two levels down") },
        { op: "write", file: at(sub, "MEMORY.md"), content: "- [one](one.md)\n" },
      ];
    }
    case 8: {
      const gone = choose(folders.filter((f) => !f.startsWith(".") && !f.includes("/.")));
      return gone ? [{ op: "rm", file: at(gone) }] : [];
    }
    case 9: {
      const moved = choose(folders.filter((f) => !f.startsWith(".")));
      return moved ? [{ op: "rename", from: at(moved), to: at(folder(), `moved${round}`) }] : [];
    }
    case 10:
      return [{ op: "write", file: at(".hidden", name), content: memory("in a dot-folder") }];
    case 11:
      return file ? [{ op: "symlink", target: at(file), file: at(folder(), `link-${name}`) }] : [];
    case 12:
      switch (pick(3)) {
        case 0: // refused: leaves the memory dir
          return [
            { op: "write", file: path.join(outside, name), content: memory("outside") },
            { op: "symlink", target: path.join(outside, name), file: at(folder(), `leak-${name}`) },
          ];
        case 1: // never followed: a symlinked folder, inside or out
          return [
            {
              op: "symlink",
              target: pick(2) ? outside : at(folder()),
              file: at(folder(), `dirlink${round}`),
            },
          ];
        default: // dangling, until a later round may create its target
          return [
            { op: "symlink", target: at(folder(), `later-${name}`), file: at(folder(), `dangling-${name}`) },
          ];
      }
    case 13:
      return [{ op: "write", file: at(folder(), "MEMORY.md"), content: memory("an index") }];
    case 14: {
      // A file turned into a folder of the same name, and a folder with a memory file's name.
      if (!file) return [];
      return [
        { op: "rm", file: at(file) },
        { op: "write", file: at(file, "inside.md"), content: memory("folder named like a file") },
      ];
    }
    case 15: {
      // A hard link from outside: writes through the outside name raise no event in the memory dir.
      if (!file) return [];
      const other = path.join(outside, `hard-${name}`);
      return [
        { op: "link", existing: at(file), file: other },
        { op: "write", file: other, content: memory("written through a hard link") },
      ];
    }
    default: {
      const other = choose(fs.readdirSync(outside).filter((f) => f.startsWith("hard-")));
      return other
        ? [{ op: "write", file: path.join(outside, other), content: memory("hard link again") }]
        : [];
    }
  }
}

/** Random changes, each round compared with a fresh full scan; most rescans must be watched ones. */
async function randomRounds(
  t: TestContext,
  options: {
    rounds: number;
    seed: number;
    hardLinks: boolean;
    sweepPerRescan?: number;
    /** As the memory helper: each round's first rescan, then the sweep run ahead, then the checked rescan. */
    sweepAhead?: boolean;
  },
): Promise<void> {
  const dir = makeTempDir();
  const outside = makeTempDir();
  writeTree(dir, {
    "MEMORY.md": "- index\n",
    "a.md": memory("first"),
    "team/b.md": memory("second"),
    "team/deep/c.md": memory("third"),
    ".git/HEAD.md": memory("never listed"),
  });
  const memdir = openMemdir(dir, { cache: "memory", sweepPerRescan: options.sweepPerRescan });
  await memdir.scan();
  const rescansBefore = memdir.stats().watch.watchedRescans;
  const pick = randomSource(options.seed);
  for (let round = 0; round < options.rounds; round++) {
    const steps: Step[] = [];
    for (let i = 1 + pick(4); i > 0; i--)
      steps.push(...randomChange(dir, outside, pick, round, options.hardLinks));
    // Every fifth round the changes come from another process (nothing of it left running).
    if (round % 5 === 0) applyInChild(steps);
    else applyStepsWith(fs, path, steps);
    if (options.sweepAhead) {
      // A prompt's rescan, then the sweep the helper runs between requests, which the next rescan
      // does not repeat: that rescan must still miss nothing. (inotify reports a new hard link's
      // link count here, so the sweep is a safety net these rounds cannot make the only witness.)
      await memdir.scan();
      memdir.sweepAhead();
    }
    await assertSameAsFullScan(dir, memdir, `after round ${round}: ${JSON.stringify(steps)}`);
  }
  const watched = memdir.stats().watch.watchedRescans - rescansBefore;
  await assertWatched(t, () =>
    assert.ok(
      watched >= options.rounds * 0.9,
      `only ${watched} of ${options.rounds} rescans were served by the watchers`,
    ),
  );
}

describe("scanHeaders with watched folders", () => {
  it("matches a fresh full scan after every round of random real changes, by events alone", async (t) => {
    // sweepPerRescan 0: nothing re-stat'ed unless an event named it
    await randomRounds(t, { rounds: 100, seed: 20_260_110, hardLinks: false, sweepPerRescan: 0 });
  });

  it("also sees writes through hard links made outside the memory dir (the sweep)", async (t) => {
    await randomRounds(t, { rounds: 40, seed: 7, hardLinks: true });
  });

  it("with the sweep run ahead between requests (the memory helper), still matches a full scan every round", async (t) => {
    await randomRounds(t, { rounds: 40, seed: 11, hardLinks: true, sweepAhead: true });
  });

  it("sees a change made just before the rescan: by a finished child, by this process, inside an I/O callback", async (t) => {
    const dir = makeTempDir();
    writeTree(dir, { "a.md": memory("a"), "team/b.md": memory("b") });
    const memdir = openMemdir(dir, { cache: "memory" });
    await memdir.scan();
    await memdir.scan();
    const rescansBefore = memdir.stats().watch.watchedRescans;
    const describe = async () =>
      new Map((await memdir.scan()).map((h) => [h.file, h.description?.split(" ")[0]]));

    runInChild(
      `require("node:fs").writeFileSync(${JSON.stringify(path.join(dir, "team/new.md"))}, ${JSON.stringify(memory("child"))})`,
    );
    assert.equal((await describe()).get("team/new.md"), "child", "a file a child wrote just before");

    runInChild(`require("node:fs").utimesSync(${JSON.stringify(path.join(dir, "a.md"))}, 1e9, 1e9)`);
    const touched = (await memdir.scan()).find((h) => h.file === "a.md");
    assert.equal(touched?.mtimeMs, 1e12, "an mtime a child set just before");

    fs.writeFileSync(path.join(dir, "a.md"), memory("self"));
    assert.equal((await describe()).get("a.md"), "self", "a write of this process just before");

    // From inside a poll-phase callback, where the inotify queue may not be read yet this turn.
    const fromCallback = await new Promise<Map<string, string | undefined>>((resolve, reject) => {
      fs.stat(dir, () => {
        fs.writeFileSync(path.join(dir, "team/b.md"), memory("callback"));
        fs.rmSync(path.join(dir, "team/new.md"));
        describe().then(resolve, reject);
      });
    });
    assert.equal(fromCallback.get("team/b.md"), "callback", "a write made inside an fs callback");
    assert.equal(fromCallback.has("team/new.md"), false, "a file deleted inside an fs callback");
    const watched = memdir.stats().watch.watchedRescans - rescansBefore;
    await assertWatched(t, () => assert.equal(watched, 4, "each rescan was served by the watchers"));
  });

  it("reuses the same header objects for unchanged files and honours limit", async () => {
    const dir = makeTempDir();
    for (let i = 0; i < 6; i++) {
      writeTree(dir, { [`m${i}.md`]: memory(`memory ${i}`) });
      fs.utimesSync(path.join(dir, `m${i}.md`), 1_700_000_000 + i, 1_700_000_000 + i);
    }
    const memdir = openMemdir(dir, { cache: "memory" });
    const first = await memdir.scan();
    fs.writeFileSync(path.join(dir, "m0.md"), memory("changed"));
    const second = await memdir.scan();
    assert.equal(second[0].file, "m0.md");
    for (const header of second.slice(1))
      assert.equal(
        header,
        first.find((h) => h.file === header.file),
        `${header.file} is the same object`,
      );
    const limited = await memdir.scan({ limit: 2 });
    assert.deepEqual(
      limited.map((h) => h.file),
      ["m0.md", "m5.md"],
    );
  });

  it("follows a symlinked memory file whose target changes where nothing is watched", async () => {
    const dir = makeTempDir();
    writeTree(dir, { ".store/kept.md": memory("target v1"), "plain.md": memory("plain") });
    fs.symlinkSync(path.join(dir, ".store/kept.md"), path.join(dir, "linked.md"));
    const memdir = openMemdir(dir, { cache: "memory" });
    await memdir.scan();
    fs.writeFileSync(path.join(dir, ".store/kept.md"), memory("target v2"));
    await assertSameAsFullScan(dir, memdir, "after the symlink's target changed");
    const linked = (await memdir.scan()).find((h) => h.file === "linked.md");
    assert.match(linked?.description ?? "", /^target v2/);
  });

  it("rebuilds its listing when the memory dir is deleted, recreated or replaced", async () => {
    const parent = makeTempDir();
    const dir = path.join(parent, "memory");
    writeTree(dir, { "a.md": memory("old a"), "team/b.md": memory("old b") });
    const memdir = openMemdir(dir, { cache: "memory" });
    await memdir.scan();
    fs.rmSync(dir, { recursive: true });
    assert.deepEqual(await memdir.scan(), []);
    writeTree(dir, { "c.md": memory("new c") });
    await assertSameAsFullScan(dir, memdir, "after the dir was recreated");
    // Replaced by a rename while watched: the old tree is gone, no event names the new one.
    const replacement = path.join(parent, "replacement");
    writeTree(replacement, { "d.md": memory("replacement d"), "team/e.md": memory("replacement e") });
    fs.rmSync(dir, { recursive: true });
    fs.renameSync(replacement, dir);
    await assertSameAsFullScan(dir, memdir, "after the dir was replaced");
    fs.writeFileSync(path.join(dir, "team/e.md"), memory("edited after"));
    await assertSameAsFullScan(dir, memdir, "after an edit in the replacement");
  });

  it("scans a tree with more folders than it watches, by listing it in full", async () => {
    const dir = makeTempDir();
    const tree: Record<string, string> = {};
    for (let i = 0; i < 300; i++) tree[`f${i}/m.md`] = memory(`folder ${i}`);
    writeTree(dir, tree);
    const memdir = openMemdir(dir, { cache: "memory" });
    const rescansBefore = memdir.stats().watch.watchedRescans;
    assert.equal((await memdir.scan()).length, 300);
    fs.writeFileSync(path.join(dir, "f7/m.md"), memory("edited"));
    fs.rmSync(path.join(dir, "f8"), { recursive: true });
    await assertSameAsFullScan(dir, memdir, "in a 300-folder tree");
    assert.equal(memdir.stats().watch.watchedRescans, rescansBefore, "no rescan used watchers");
  });

  it("lists in full again after a change too big to re-check path by path, then watches again", async (t) => {
    const dir = makeTempDir();
    writeTree(dir, { "a.md": memory("a") });
    const memdir = openMemdir(dir, { cache: "memory" });
    await memdir.scan();
    const builtBefore = memdir.stats().watch.watchSetsBuilt;
    const bulk: Record<string, string> = {};
    for (let i = 0; i < 2500; i++) bulk[`bulk/m${i}.md`] = memory(`bulk ${i}`);
    writeTree(dir, bulk);
    await assertSameAsFullScan(dir, memdir, "after 2,500 new files");
    const built = memdir.stats().watch.watchSetsBuilt - builtBefore;
    const rescansBefore = memdir.stats().watch.watchedRescans;
    fs.writeFileSync(path.join(dir, "bulk/m7.md"), memory("edited"));
    await assertSameAsFullScan(dir, memdir, "after an edit in the bulk folder");
    const watched = memdir.stats().watch.watchedRescans - rescansBefore;
    await assertWatched(t, () => {
      assert.equal(built, 1, "a new watch set was built");
      assert.equal(watched, 1, "the edit was seen by the new watchers");
    });
  });

  it("gives every overlapping scan the same, whole result", async () => {
    const dir = makeTempDir();
    writeTree(dir, { "a.md": memory("a"), "b.md": memory("b") });
    const memdir = openMemdir(dir, { cache: "memory" });
    await memdir.scan();
    for (let i = 0; i < 20; i++) writeTree(dir, { [`n${i}.md`]: memory(`new ${i}`) });
    const [one, two, three] = await Promise.all([memdir.scan(), memdir.scan({ limit: 5 }), memdir.scan()]);
    const fresh = seen(await scanHeaders(dir, { cache: null }));
    assert.deepEqual(seen(one), fresh);
    assert.deepEqual(seen(two), fresh.slice(0, 5));
    assert.deepEqual(seen(three), fresh);
  });

  it("stays correct after an aborted scan", async () => {
    const dir = makeTempDir();
    writeTree(dir, { "a.md": memory("a") });
    const memdir = openMemdir(dir, { cache: "memory" });
    await assert.rejects(memdir.scan({ signal: AbortSignal.abort() }), /aborted/);
    await memdir.scan();
    writeTree(dir, { "b.md": memory("b") });
    await assert.rejects(memdir.scan({ signal: AbortSignal.abort() }), /aborted/);
    await assertSameAsFullScan(dir, memdir, "after aborted scans");
  });

  it("is turned off by MEMDIR_NO_WATCH=1 and off Linux", () => {
    assert.equal(watchingEnabled({}, "linux"), true);
    assert.equal(watchingEnabled({ MEMDIR_NO_WATCH: "1" }, "linux"), false);
    assert.equal(watchingEnabled({ MEMDIR_NO_WATCH: "0" }, "linux"), true);
    assert.equal(watchingEnabled({}, "darwin"), false);
    assert.equal(watchingEnabled({}, "win32"), false);
  });

  it("never keeps a one-shot command alive", async () => {
    const home = makeTempDir();
    const dir = path.join(home, "memory");
    writeTree(dir, { "a.md": memory("listed"), "team/b.md": memory("listed too") });
    const listed = await runCli(["list", "--dir", dir, "--json"], { home, timeoutMs: 60_000 });
    assert.equal(listed.code, 0, `the command did not exit by itself: ${listed.stderr}`);
    assert.match(listed.stdout, /team\/b\.md/);
  });
});

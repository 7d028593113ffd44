// What a sync may trust without reading a file (docs/design.md#sync-stat-cache), and a new
// machine's first pull: real git with a local bare repository, real temp dirs. The library call
// takes a clock, so the stat cache's racy rule (a file changed within 2 s of its stat is read
// again) can be moved past without waiting.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { recordChange } from "../../src/dream/history.ts";
import { blobId, openClone } from "../../src/sync/repository.ts";
import { type SyncTarget, syncFolder } from "../../src/sync/run.ts";
import { initBoth, makeWorld, memory, syncJson, twoSyncTargets } from "../helpers/sync-machines.ts";
import { makeTempDir } from "../helpers/temp.ts";

const KEY = "github.com/acme/shop";
// Every file stat'ed now counts as settled: its cache entry is kept and trusted next time.
const later = () => Date.now() + 60_000;

/** Edits `target`'s stat-cache.json: `file`'s entry gets the file's current stat and `blob`. */
function vouchFor(target: SyncTarget, file: string, blob: string): void {
  const cachePath = path.join(openClone(target.root, target.url).dir, "stat-cache.json");
  const caches = JSON.parse(fs.readFileSync(cachePath, "utf8")) as Record<string, Record<string, unknown[]>>;
  const stat = fs.lstatSync(path.join(target.localDir, file));
  // The machine's one folder entry: the project key and its memory dir (src/sync/state.ts).
  const folder = Object.keys(caches).find((name) => name.startsWith(`${KEY}:`)) ?? KEY;
  caches[folder][file] = [stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino, blob, 0];
  fs.writeFileSync(cachePath, JSON.stringify(caches));
}

describe("memdir sync: the stat cache and a quiet sync", () => {
  it("pushes a memory rewritten with the same size and its modification time put back", async () => {
    const { a, b } = twoSyncTargets("memdir-stat-cache-");
    const file = path.join(a.localDir, "project-deploys.md");
    fs.writeFileSync(file, memory("deploys run on fridays", "from the release branch", "project"));
    // A whole second, so putting it back later is exact (a Date carries milliseconds only).
    const hourAgo = Math.floor(Date.now() / 1000) - 3600;
    fs.utimesSync(file, hourAgo, hourAgo);
    await syncFolder(a, { now: later });
    await syncFolder(a, { now: later });
    const { mtimeMs, size } = fs.statSync(file);
    const changed = memory("deploys run on mondays", "from the release branch", "project");
    assert.equal(Buffer.byteLength(changed), size);
    fs.writeFileSync(file, changed);
    fs.utimesSync(file, hourAgo, hourAgo);
    assert.equal(fs.statSync(file).mtimeMs, mtimeMs);
    assert.equal(fs.statSync(file).size, size);
    const report = await syncFolder(a, { now: later });
    assert.equal(report.pushed, 1);
    await syncFolder(b, { now: later });
    assert.equal(fs.readFileSync(path.join(b.localDir, "project-deploys.md"), "utf8"), changed);
  });

  it("reports the same held files again when nothing changed, and still pushes the next change", async () => {
    const { a, b } = twoSyncTargets("memdir-stat-cache-");
    fs.writeFileSync(
      path.join(a.localDir, "user-health.md"),
      "---\ndescription: a private note\ntype: user\nvisibility: private\n---\nprivate\n",
    );
    fs.writeFileSync(
      path.join(a.localDir, "project-ci.md"),
      memory("the CI token", `token: ghp_${"aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"}`),
    );
    fs.writeFileSync(path.join(a.localDir, "project-ok.md"), memory("an ordinary memory", "fine"));
    const first = await syncFolder(a, { now: later });
    assert.equal(first.pushed, 1);
    const quiet = await syncFolder(a, { now: later });
    assert.deepEqual(
      { pushed: quiet.pushed, pulled: quiet.pulled, skipped: quiet.skipped, conflicts: quiet.conflicts },
      { pushed: 0, pulled: 0, skipped: first.skipped, conflicts: first.conflicts },
    );
    fs.writeFileSync(path.join(a.localDir, "project-next.md"), memory("the next memory", "later"));
    assert.equal((await syncFolder(a, { now: later })).pushed, 1);
    await syncFolder(b, { now: later });
    assert.deepEqual(
      fs
        .readdirSync(b.localDir)
        .filter((f) => f.endsWith(".md"))
        .sort(),
      ["MEMORY.md", "project-next.md", "project-ok.md"],
    );
  });

  it("takes a change made on the other machine after a quiet sync", async () => {
    const { a, b } = twoSyncTargets("memdir-stat-cache-");
    fs.writeFileSync(path.join(a.localDir, "project-ok.md"), memory("an ordinary memory", "fine"));
    await syncFolder(a, { now: later });
    await syncFolder(b, { now: later });
    await syncFolder(a, { now: later });
    fs.writeFileSync(path.join(b.localDir, "project-ok.md"), memory("an ordinary memory", "changed on b"));
    await syncFolder(b, { now: later });
    assert.equal((await syncFolder(a, { now: later })).pulled, 1);
    assert.match(fs.readFileSync(path.join(a.localDir, "project-ok.md"), "utf8"), /changed on b/);
  });

  it("drops an entry whose stat matches but whose blob is wrong: the edit is pushed by the second sync, then the sync is quiet", async () => {
    const { a, b } = twoSyncTargets("memdir-stat-cache-");
    const file = "project-deploys.md";
    fs.writeFileSync(path.join(a.localDir, file), memory("deploys run on fridays", "from main", "project"));
    await syncFolder(a, { now: later });
    const edited = memory("deploys run on mondays", "from the release branch", "project");
    fs.writeFileSync(path.join(a.localDir, file), edited);
    // A damaged stat-cache.json: the entry has the file's stat, and a blob no file has.
    vouchFor(a, file, "0123456789abcdef0123456789abcdef01234567");
    const first = await syncFolder(a, { now: later });
    if (first.pushed === 0) {
      assert.deepEqual(first.skipped, [
        { file, reason: "changed while this sync ran; the next sync takes it" },
      ]);
      assert.equal((await syncFolder(a, { now: later })).pushed, 1);
    }
    const quiet = await syncFolder(a, { now: later });
    assert.deepEqual(
      { pushed: quiet.pushed, pulled: quiet.pulled, skipped: quiet.skipped },
      { pushed: 0, pulled: 0, skipped: [] },
    );
    await syncFolder(b, { now: later });
    assert.equal(fs.readFileSync(path.join(b.localDir, file), "utf8"), edited);
  });

  it("never writes a pulled change over a local edit whose cache entry wrongly names the base's blob", async () => {
    const { a, b } = twoSyncTargets("memdir-stat-cache-");
    const file = "project-deploys.md";
    const base = memory("deploys run on fridays", "from main", "project");
    fs.writeFileSync(path.join(a.localDir, file), base);
    await syncFolder(a, { now: later });
    await syncFolder(b, { now: later });
    const theirs = memory("deploys run on fridays", "changed on b", "project");
    fs.writeFileSync(path.join(b.localDir, file), theirs);
    await syncFolder(b, { now: later });
    const ours = memory("deploys run on mondays", "changed on a", "project");
    fs.writeFileSync(path.join(a.localDir, file), ours);
    // As a buggy version could leave it: the edited file's stat with the base's blob.
    vouchFor(a, file, blobId(base));
    await syncFolder(a, { now: later });
    assert.equal(fs.readFileSync(path.join(a.localDir, file), "utf8"), ours);
    await syncFolder(a, { now: later });
    assert.equal(fs.readFileSync(path.join(a.localDir, file), "utf8"), ours);
    const names = fs
      .readdirSync(a.localDir)
      .filter((name) => name !== file && name.startsWith("project-deploys"));
    assert.equal(names.length, 1, `one conflict file beside it: ${names.join(", ")}`);
    assert.match(fs.readFileSync(path.join(a.localDir, names[0]), "utf8"), /changed on b/);
    const quiet = await syncFolder(a, { now: later });
    assert.deepEqual(
      { pushed: quiet.pushed, pulled: quiet.pulled, skipped: quiet.skipped },
      { pushed: 0, pulled: 0, skipped: [] },
    );
    await syncFolder(b, { now: later });
    assert.equal(fs.readFileSync(path.join(b.localDir, file), "utf8"), ours);
  });
});

describe("memdir sync: a quiet folder known by its stats", () => {
  const statCacheOf = (target: SyncTarget) =>
    path.join(openClone(target.root, target.url).dir, "stat-cache.json");

  it("reads neither the stat cache nor a memory when nothing changed since a quiet sync, and still sees each kind of change", async () => {
    const { a, b } = twoSyncTargets("memdir-stat-quiet-");
    fs.writeFileSync(path.join(a.localDir, "project-ok.md"), memory("an ordinary memory", "fine"));
    fs.writeFileSync(path.join(a.localDir, "project-ci.md"), memory("ci runs on buildkite", "fine"));
    await syncFolder(a, { now: later });
    await syncFolder(a, { now: later }); // quiet: its read's stats are kept
    // A damaged stat cache: a sync that read it would hash every file and write it again.
    fs.writeFileSync(statCacheOf(a), "{ damaged");
    const quiet = await syncFolder(a, { now: later });
    assert.deepEqual({ pushed: quiet.pushed, pulled: quiet.pulled }, { pushed: 0, pulled: 0 });
    assert.equal(fs.readFileSync(statCacheOf(a), "utf8"), "{ damaged", "the stat cache was read");

    // Each change the stats must see, one at a time, is pushed (or read) by the next sync.
    fs.appendFileSync(path.join(a.localDir, "project-ok.md"), "appended\n");
    assert.equal((await syncFolder(a, { now: later })).pushed, 1, "an edit");
    await syncFolder(a, { now: later });
    fs.writeFileSync(path.join(a.localDir, "project-new.md"), memory("a new memory", "later"));
    assert.equal((await syncFolder(a, { now: later })).pushed, 1, "a new file");
    await syncFolder(a, { now: later });
    fs.rmSync(path.join(a.localDir, "project-ci.md"));
    assert.equal((await syncFolder(a, { now: later })).pushed, 1, "a deletion");
    await syncFolder(a, { now: later });
    fs.symlinkSync(path.join(a.localDir, "project-ok.md"), path.join(a.localDir, "project-link.md"));
    const linked = await syncFolder(a, { now: later });
    assert.ok(
      linked.skipped.some((skip) => skip.file === "project-link.md"),
      `a symlink is named as held: ${JSON.stringify(linked.skipped)}`,
    );
    await syncFolder(b, { now: later });
    assert.deepEqual(
      fs
        .readdirSync(b.localDir)
        .filter((f) => f.endsWith(".md"))
        .sort(),
      ["MEMORY.md", "project-new.md", "project-ok.md"],
    );
    assert.match(fs.readFileSync(path.join(b.localDir, "project-ok.md"), "utf8"), /appended/);
  });

  it("keeps no stats from a read within the racy window: the next sync reads the files again", async () => {
    const { a } = twoSyncTargets("memdir-stat-quiet-");
    fs.writeFileSync(path.join(a.localDir, "project-ok.md"), memory("an ordinary memory", "fine"));
    await syncFolder(a, { now: later });
    // Now, not later: the file was written within 2 s of this read, so its stat vouches for nothing.
    await syncFolder(a);
    fs.writeFileSync(statCacheOf(a), "{ damaged");
    await syncFolder(a, { now: later });
    assert.notEqual(fs.readFileSync(statCacheOf(a), "utf8"), "{ damaged", "the files were read again");
  });
});

describe("memdir sync: a new machine's first pull", () => {
  it("writes every memory with its index line, as one history entry that memdir undo takes back whole", async () => {
    const world = makeWorld();
    await initBoth(world);
    const count = 40;
    for (let i = 0; i < count; i++)
      world.a.write(`project-note-${i}.md`, memory(`note ${i} about module ${i}`, `body ${i}`, "project"));
    assert.equal((await syncJson(world.a)).pushed, count);
    const report = await syncJson(world.b);
    assert.equal(report.pulled, count);
    assert.equal(world.b.files().length, count);
    const index = world.b.read("MEMORY.md") ?? "";
    for (let i = 0; i < count; i++) assert.match(index, new RegExp(`\\(project-note-${i}\\.md\\)`));
    const history = await world.b.memdir(["history", "--json"]);
    assert.equal(history.code, 0, history.stderr);
    const { entries } = JSON.parse(history.stdout) as { entries: { command: string }[] };
    assert.deepEqual(
      entries.map((entry) => entry.command),
      ["memdir sync"],
    );
    const undo = await world.b.memdir(["undo", "--json"]);
    assert.equal(undo.code, 0, undo.stderr);
    assert.deepEqual(world.b.files(), []);
  });

  it("hands a large pull's blobs to the history in one pack, and the entry is the same: undo takes it back, the history checks clean", async () => {
    const world = makeWorld();
    await initBoth(world);
    const count = 80;
    for (let i = 0; i < count; i++)
      world.a.write(`project-note-${i}.md`, memory(`note ${i} about module ${i}`, `body ${i}`, "project"));
    assert.equal((await syncJson(world.a)).pushed, count);
    assert.equal((await syncJson(world.b)).pulled, count);
    const gitDir = path.join(world.b.memoryDir, ".git");
    const git = (...args: string[]) =>
      execFileSync("git", [`--git-dir=${gitDir}`, ...args], {
        encoding: "utf8",
        env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
      });
    const inPack = Number(/^in-pack: (\d+)$/m.exec(git("count-objects", "-v"))?.[1]);
    assert.ok(inPack >= count, `the pulled blobs came as a pack (${inPack} objects in packs)`);
    // Every pulled file is in the entry, as the file on disk says.
    const committed = git("ls-tree", "--name-only", "HEAD").trim().split("\n");
    assert.equal(committed.filter((file) => file.startsWith("project-note-")).length, count);
    assert.equal(git("show", "HEAD:project-note-7.md"), world.b.read("project-note-7.md"));
    git("fsck", "--strict", "--no-progress");
    const history = JSON.parse((await world.b.memdir(["history", "--json"])).stdout) as {
      entries: { command: string }[];
    };
    assert.deepEqual(
      history.entries.map((entry) => entry.command),
      ["memdir sync"],
    );
    const undo = await world.b.memdir(["undo", "--json"]);
    assert.equal(undo.code, 0, undo.stderr);
    assert.deepEqual(world.b.files(), []);
  });
});

describe("a change recorded with a pack of its blobs", () => {
  it("is recorded whole when the pack is not one (git refuses it): the commit stores the files itself", async () => {
    const memoryDir = makeTempDir("memdir-history-pack-");
    const { entry } = await recordChange(
      memoryDir,
      {
        kind: "sync",
        command: "memdir sync",
        message: "pulled 1 file(s)",
        objects: async () => Buffer.from("PACK this is not a pack"),
        lock: true,
      },
      async () => {
        fs.writeFileSync(path.join(memoryDir, "project-ok.md"), memory("an ordinary memory", "fine"));
      },
    );
    assert.deepEqual(
      entry?.changes.map((change) => [change.change, change.file]),
      [["added", "project-ok.md"]],
    );
  });
});

describe("the sync clone left clean by this machine's own push", () => {
  it("a sync stopped after writing into the clone leaves nothing there that the next one pushes", async () => {
    const { a, b } = twoSyncTargets("memdir-stat-cache-");
    fs.writeFileSync(path.join(a.localDir, "project-first.md"), memory("the first memory", "pushed"));
    assert.equal((await syncFolder(a, { now: later })).pushed, 1);
    const names = Array.from({ length: 40 }, (_, i) => `project-note-${i}.md`);
    for (const name of names) fs.writeFileSync(path.join(a.localDir, name), memory(`note ${name}`, "body"));
    // Stopped once the first batch of this round's files is in the clone's work tree, before its commit.
    const stop = new AbortController();
    await assert.rejects(
      syncFolder(a, {
        now: later,
        signal: stop.signal,
        progress: (step) => {
          if (step === "writing pulled files") stop.abort();
        },
      }),
    );
    // The user deletes one of those files here; the next sync must not bring it back from the clone.
    fs.rmSync(path.join(a.localDir, names[0]));
    const report = await syncFolder(a, { now: later });
    assert.equal(report.pushed, names.length - 1);
    await syncFolder(b, { now: later });
    assert.equal(fs.existsSync(path.join(b.localDir, names[0])), false);
    assert.equal(fs.existsSync(path.join(b.localDir, names[1])), true);
    // And again after a clean push: the next change goes out alone.
    fs.writeFileSync(path.join(a.localDir, names[1]), memory("note changed", "body changed"));
    assert.equal((await syncFolder(a, { now: later })).pushed, 1);
    await syncFolder(b, { now: later });
    assert.equal(
      fs.readFileSync(path.join(b.localDir, names[1]), "utf8"),
      memory("note changed", "body changed"),
    );
    assert.equal(fs.existsSync(path.join(b.localDir, names[0])), false);
  });
});

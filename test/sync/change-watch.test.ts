// A quiet sync vouched for by a change watch (docs/design.md#sync-stat-cache, "A quiet sync with
// the helper running"): the helper's watch (src/helper/change-watch.ts) in this process, real
// inotify watchers, real git with a local bare repository. What a user notices: such a sync does
// not read the memory dir (no "checking memory files" on the terminal), and every change is still
// pushed or pulled by the next sync whatever the watch could or could not see.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { ChangeWatches } from "../../src/helper/change-watch.ts";
import { type ChangeWatch, type SyncOptions, type SyncTarget, syncFolder } from "../../src/sync/run.ts";
import { memory, twoSyncTargets } from "../helpers/sync-machines.ts";

// Every file stat'ed now counts as settled (the stat cache's racy rule, src/sync/local.ts).
const later = () => Date.now() + 60_000;
const opened: ChangeWatches[] = [];
afterEach(() => {
  for (const watches of opened.splice(0)) watches.close();
});

/** A helper's change watch, counting its questions. */
function helperWatch(): { changeWatch: ChangeWatch; asked: () => number } {
  const watches = new ChangeWatches();
  opened.push(watches);
  let asked = 0;
  return {
    changeWatch: (dir, token) => {
      asked++;
      return watches.check(dir, token);
    },
    asked: () => asked,
  };
}

/** Syncs `target`; the report and whether the sync read the memory dir (its progress says so). */
async function syncReading(target: SyncTarget, options: SyncOptions = {}) {
  const steps: string[] = [];
  const report = await syncFolder(target, {
    now: later,
    ...options,
    progress: (step) => {
      steps.push(step);
    },
  });
  return { report, read: steps.includes("checking memory files") };
}

function machineA(): { a: SyncTarget; b: SyncTarget } {
  const { a, b } = twoSyncTargets("memdir-change-watch-sync-");
  fs.writeFileSync(
    path.join(a.localDir, "project-deploys.md"),
    memory("deploys run on fridays", "from main", "project"),
  );
  fs.writeFileSync(path.join(a.localDir, "user-tabs.md"), memory("tabs", "two spaces", "user"));
  return { a, b };
}

describe("memdir sync with a change watch", {
  skip: process.platform !== "linux" && "inotify: Linux only",
}, () => {
  it("does not read the memory dir when the watch saw nothing since the last quiet sync", async () => {
    const { a } = machineA();
    const watch = helperWatch();
    // The first question begins the watch: this sync reads, pushes, and keeps the token.
    const first = await syncReading(a, watch);
    assert.deepEqual([first.read, first.report.pushed], [true, 2]);
    for (let i = 0; i < 2; i++) {
      const { report, read } = await syncReading(a, watch);
      assert.equal(read, false, "vouched for: no file checked");
      assert.deepEqual([report.pushed, report.pulled, report.conflicts, report.skipped], [0, 0, [], []]);
    }
    assert.equal(watch.asked(), 3);
    // Without a watch the same quiet sync checks every file, as before.
    assert.equal((await syncReading(a)).read, true);
  });

  it("pushes a memory rewritten with the same size and its modification time put back", async () => {
    const { a, b } = machineA();
    const watch = helperWatch();
    await syncReading(a, watch);
    await syncReading(a, watch);
    assert.equal((await syncReading(a, watch)).read, false);
    const file = path.join(a.localDir, "project-deploys.md");
    const before = fs.statSync(file);
    const changed = memory("deploys run on mondays", "from main", "project");
    assert.equal(Buffer.byteLength(changed), before.size);
    fs.writeFileSync(file, changed);
    fs.utimesSync(file, before.atime, before.mtime);
    const { report, read } = await syncReading(a, watch);
    assert.equal(read, true);
    assert.equal(report.pushed, 1);
    await syncFolder(b, { now: later });
    assert.equal(fs.readFileSync(path.join(b.localDir, "project-deploys.md"), "utf8"), changed);
  });

  it("pushes a memory saved in a sub-folder made after the watch began", async () => {
    const { a, b } = machineA();
    const watch = helperWatch();
    await syncReading(a, watch);
    await syncReading(a, watch);
    fs.mkdirSync(path.join(a.localDir, "backend"));
    fs.writeFileSync(
      path.join(a.localDir, "backend", "project-db.md"),
      memory("db", "postgres 16", "project"),
    );
    assert.equal((await syncReading(a, watch)).report.pushed, 1);
    await syncFolder(b, { now: later });
    assert.match(fs.readFileSync(path.join(b.localDir, "backend", "project-db.md"), "utf8"), /postgres 16/);
  });

  it("pulls what another machine pushed although nothing changed here", async () => {
    const { a, b } = machineA();
    const watch = helperWatch();
    await syncReading(a, watch);
    await syncReading(a, watch);
    assert.equal((await syncReading(a, watch)).read, false);
    await syncFolder(b, { now: later });
    fs.writeFileSync(path.join(b.localDir, "user-editor.md"), memory("editor", "helix", "user"));
    assert.equal((await syncFolder(b, { now: later })).pushed, 1);
    const { report } = await syncReading(a, watch);
    assert.equal(report.pulled, 1);
    assert.match(fs.readFileSync(path.join(a.localDir, "user-editor.md"), "utf8"), /helix/);
  });

  it("pushes a change made while no watch ran (the helper stopped, then a new one)", async () => {
    const { a, b } = machineA();
    const first = helperWatch();
    await syncReading(a, first);
    await syncReading(a, first);
    for (const watches of opened.splice(0)) watches.close(); // the helper exits
    fs.appendFileSync(path.join(a.localDir, "user-tabs.md"), "Also in YAML files.\n");
    // A sync with no helper keeps the token it cannot check; the next helper does not know it.
    const alone = await syncReading(a);
    assert.deepEqual([alone.read, alone.report.pushed], [true, 1]);
    fs.appendFileSync(path.join(a.localDir, "project-deploys.md"), "Never on holidays.\n");
    const { report, read } = await syncReading(a, helperWatch());
    assert.deepEqual([read, report.pushed], [true, 1]);
    await syncFolder(b, { now: later });
    assert.match(fs.readFileSync(path.join(b.localDir, "project-deploys.md"), "utf8"), /holidays/);
    assert.match(fs.readFileSync(path.join(b.localDir, "user-tabs.md"), "utf8"), /YAML/);
  });

  it("keeps the token through a sync the helper did not answer, and its watch still sees what that sync read", async () => {
    const { a, b } = machineA();
    const watch = helperWatch();
    await syncReading(a, watch);
    assert.equal((await syncReading(a, watch)).read, false);
    fs.appendFileSync(path.join(a.localDir, "user-tabs.md"), "Also in YAML files.\n");
    // No answer this time (the helper was busy): the sync reads and pushes, the token stays.
    const alone = await syncReading(a);
    assert.deepEqual([alone.read, alone.report.pushed], [true, 1]);
    // The same helper saw the edit since that token: this sync reads, and finds nothing new.
    const next = await syncReading(a, watch);
    assert.deepEqual([next.read, next.report.pushed], [true, 0]);
    assert.equal((await syncReading(a, watch)).read, false);
    await syncFolder(b, { now: later });
    assert.match(fs.readFileSync(path.join(b.localDir, "user-tabs.md"), "utf8"), /YAML/);
  });

  it("never skips the read while a memory has another hard link, and pushes an edit made through it", async () => {
    const { a, b } = machineA();
    const outside = path.join(path.dirname(a.localDir), "outside-tabs.md");
    fs.linkSync(path.join(a.localDir, "user-tabs.md"), outside);
    const watch = helperWatch();
    await syncReading(a, watch);
    assert.equal((await syncReading(a, watch)).read, true, "a hard-linked memory: no watch vouches");
    // Written through the other link: no event in the memory dir.
    fs.appendFileSync(outside, "Edited from outside.\n");
    const { read, report } = await syncReading(a, watch);
    assert.deepEqual([read, report.pushed], [true, 1]);
    await syncFolder(b, { now: later });
    assert.match(fs.readFileSync(path.join(b.localDir, "user-tabs.md"), "utf8"), /from outside/);
  });

  it("syncs as before when the watch fails or cannot watch the dir", async () => {
    const { a } = machineA();
    const failing: ChangeWatch = async () => {
      throw new Error("the helper's socket closed");
    };
    const unwatchable: ChangeWatch = async () => ({ unchanged: false, token: null });
    for (const changeWatch of [failing, unwatchable]) {
      await syncReading(a, { changeWatch });
      fs.appendFileSync(path.join(a.localDir, "user-tabs.md"), "One more line.\n");
      const { report, read } = await syncReading(a, { changeWatch });
      assert.deepEqual([read, report.pushed], [true, 1]);
      assert.equal((await syncReading(a, { changeWatch })).read, true);
    }
  });
});

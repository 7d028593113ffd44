// `memdir undo` of a sync's pull takes it back on this machine only (docs/sync.md, "Undoing a
// pull"; docs/design.md#undo): the next sync reads the remote's changes as the remote's again and
// pushes only this machine's own, so nobody's memory is deleted anywhere. Two machines (temp
// HOMEs), a local bare repository as the remote, real git and real CLI processes, both history
// backends.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { recordPull, undonePulls } from "../../src/dream/history.ts";
import { type SyncOptions, type SyncTarget, syncFolder } from "../../src/sync/run.ts";
import { cliNodeArgs } from "../helpers/node-entry.ts";
import {
  gitIn,
  initBoth,
  type Machine,
  makeWorld,
  memory,
  PROJECT_KEY,
  syncJson,
  type World,
} from "../helpers/sync-machines.ts";
import { waitFor } from "../helpers/wait.ts";

async function undo(m: Machine, id?: string): Promise<{ undone: { id: string }; entry: { id: string } }> {
  const result = await m.memdir(["undo", ...(id ? [id] : []), "--json"]);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout);
}

async function syncEntries(m: Machine): Promise<string[]> {
  const result = await m.memdir(["history", "--json"]);
  assert.equal(result.code, 0, result.stderr);
  const { entries } = JSON.parse(result.stdout) as { entries: { id: string; kind: string }[] };
  return entries.filter((entry) => entry.kind === "sync").map((entry) => entry.id);
}

/** Every text the remote's project folder holds, joined: what a third machine could still get. */
function remoteTexts(world: World): string {
  return world
    .remoteFiles()
    .map((file) => world.remoteText(file) ?? "")
    .join("\n");
}

/** Every memory text on a machine, joined. */
function textsOn(m: Machine): string {
  return m
    .files()
    .map((file) => m.read(file) ?? "")
    .join("\n");
}

/** A sync on `m` that must delete none of the memories it had. */
async function syncDeletingNothing(m: Machine): Promise<void> {
  const before = m.files();
  await syncJson(m);
  const after = m.files();
  assert.deepEqual(
    before.filter((file) => !after.includes(file)),
    [],
    "a sync after another machine's undo deleted memories",
  );
}

/** Machine `m`'s sync of its memory dir with the remote, run in this process (its test hooks). */
function syncHere(world: World, m: Machine, options: SyncOptions): Promise<unknown> {
  const target: SyncTarget = {
    root: path.join(m.home, ".claude"),
    url: world.remoteUrl,
    key: PROJECT_KEY,
    localDir: m.memoryDir,
    excludeTeam: true,
  };
  return syncFolder(target, { undonePulls, ...options });
}

/** The history entries of `m`, newest first. */
async function historyOf(m: Machine): Promise<{ id: string; kind: string; message: string }[]> {
  const result = await m.memdir(["history", "--json"]);
  assert.equal(result.code, 0, result.stderr);
  return (JSON.parse(result.stdout) as { entries: { id: string; kind: string; message: string }[] }).entries;
}

const SHARED = "project-shared.md";
const NEW = "project-new.md";

for (const backend of ["git", "journal"] as const) {
  describe(`memdir undo of a pull, then memdir sync (${backend} history)`, () => {
    /** Machines a and b sharing SHARED; b's history is `backend`. */
    async function sharedWorld(): Promise<World> {
      const world = makeWorld();
      if (backend === "journal") fs.mkdirSync(path.join(world.b.memoryDir, ".history"), { recursive: true });
      await initBoth(world);
      world.a.write(SHARED, memory("shared", "the first text", "project"));
      await syncJson(world.a);
      await syncJson(world.b);
      assert.deepEqual(world.b.files(), [SHARED]);
      assert.equal(fs.existsSync(path.join(world.b.memoryDir, ".git")), backend === "git");
      return world;
    }

    it("keeps a teammate's new memory and their side of a conflict in the remote and on their machine", async () => {
      const world = await sharedWorld();
      world.a.write(NEW, memory("a's new memory", "A's new memory", "project"));
      world.a.write(SHARED, memory("shared", "A's version", "project"));
      await syncJson(world.a);
      world.b.write(SHARED, memory("shared", "B's version", "project"));
      const pulled = await syncJson(world.b, ["--pull"]);
      assert.equal(pulled.conflicts.length, 1);
      await undo(world.b);
      assert.deepEqual(world.b.files(), [SHARED]);
      assert.match(world.b.read(SHARED) ?? "", /B's version/);

      await syncJson(world.b);
      assert.match(world.remoteText(NEW) ?? "", /A's new memory/);
      assert.match(remoteTexts(world), /A's version/);
      assert.match(world.remoteText(SHARED) ?? "", /B's version/); // b's own edit, pushed as usual
      assert.ok(world.b.files().includes(NEW), "the undone pull's memory comes back on the next sync");

      await syncDeletingNothing(world.a);
      assert.match(world.a.read(NEW) ?? "", /A's new memory/);
      assert.match(textsOn(world.a), /A's version/);
      assert.match(textsOn(world.a), /B's version/);
    });

    it("keeps the remote's memories after a first pull is undone, and pushes only the new machine's own", async () => {
      const world = makeWorld();
      if (backend === "journal") fs.mkdirSync(path.join(world.b.memoryDir, ".history"), { recursive: true });
      await initBoth(world);
      for (const n of [1, 2, 3])
        world.a.write(`project-note${n}.md`, memory(`note ${n}`, `A's note ${n}`, "project"));
      await syncJson(world.a);
      assert.equal((await syncJson(world.b)).pulled, 3);
      await undo(world.b);
      assert.deepEqual(world.b.files(), []);
      const status = await world.b.memdir(["sync", "--status", "--json"]);
      assert.equal(status.code, 0, status.stderr);
      assert.deepEqual((({ ahead, behind }) => ({ ahead, behind }))(JSON.parse(status.stdout)), {
        ahead: 0,
        behind: 3,
      });
      world.b.write("project-mine.md", memory("b's own", "B's own note", "project"));

      const report = await syncJson(world.b);
      assert.equal(report.pushed, 1);
      assert.deepEqual(world.remoteFiles(), [
        "MEMORY.md",
        "project-mine.md",
        "project-note1.md",
        "project-note2.md",
        "project-note3.md",
      ]);
      await syncDeletingNothing(world.a);
      assert.deepEqual(world.a.files(), [
        "project-mine.md",
        "project-note1.md",
        "project-note2.md",
        "project-note3.md",
      ]);
    });

    it("reads an older pull undone by id as the remote's, not only the last one", async () => {
      const world = await sharedWorld();
      world.a.write("project-first.md", memory("first", "A's first", "project"));
      await syncJson(world.a);
      await syncJson(world.b);
      world.a.write("project-second.md", memory("second", "A's second", "project"));
      await syncJson(world.a);
      await syncJson(world.b);
      const [, older] = await syncEntries(world.b);
      assert.equal((await undo(world.b, older)).undone.id, older);
      assert.ok(!world.b.files().includes("project-first.md"));

      const report = await syncJson(world.b);
      assert.deepEqual({ pulled: report.pulled, pushed: report.pushed }, { pulled: 1, pushed: 0 });
      assert.match(world.remoteText("project-first.md") ?? "", /A's first/);
      await syncDeletingNothing(world.a);
      assert.match(world.a.read("project-first.md") ?? "", /A's first/);
    });

    it("pushes a genuine edit made after the undo as a conflict, losing neither side", async () => {
      const world = await sharedWorld();
      world.a.write(SHARED, memory("shared", "A's edit", "project"));
      world.a.write(NEW, memory("a's new memory", "A's new memory", "project"));
      await syncJson(world.a);
      await syncJson(world.b);
      await undo(world.b);
      assert.match(world.b.read(SHARED) ?? "", /the first text/);
      world.b.write(SHARED, memory("shared", "B's edit", "project"));
      world.b.write(NEW, memory("b's memory of that name", "B's own text", "project"));

      const report = await syncJson(world.b);
      assert.equal(report.conflicts.length, 2);
      for (const text of [/A's edit/, /B's edit/, /A's new memory/, /B's own text/]) {
        assert.match(remoteTexts(world), text);
        assert.match(textsOn(world.b), text);
      }
      await syncDeletingNothing(world.a);
      for (const text of [/A's edit/, /B's edit/, /A's new memory/, /B's own text/])
        assert.match(textsOn(world.a), text);
    });

    it("takes back only the pulls whose undo stands: an undo undone again leaves its pull as it was", async () => {
      const world = await sharedWorld();
      world.a.write("project-first.md", memory("first", "A's first", "project"));
      await syncJson(world.a);
      await syncJson(world.b);
      world.a.write("project-second.md", memory("second", "A's second", "project"));
      await syncJson(world.a);
      await syncJson(world.b);
      const [newer, older] = await syncEntries(world.b);
      const { entry } = await undo(world.b, newer);
      await undo(world.b, entry.id); // the second pull is back
      await undo(world.b, older);
      assert.deepEqual(world.b.files(), ["project-second.md", SHARED]);

      const report = await syncJson(world.b);
      assert.deepEqual({ pulled: report.pulled, pushed: report.pushed }, { pulled: 1, pushed: 0 });
      assert.deepEqual(world.remoteFiles(), ["MEMORY.md", "project-first.md", "project-second.md", SHARED]);
      await syncDeletingNothing(world.a);
    });

    it("keeps a pull stopped part-way known: its undo by id is pulled again, never pushed", async () => {
      const world = makeWorld();
      if (backend === "journal") fs.mkdirSync(path.join(world.b.memoryDir, ".history"), { recursive: true });
      await initBoth(world);
      const notes = Array.from({ length: 20 }, (_, n) => `project-note${String(n).padStart(2, "0")}.md`);
      for (const file of notes) world.a.write(file, memory(file, `A's ${file}`, "project"));
      await syncJson(world.a);
      // b's first pull is stopped after its first batch of files, as its time bound (`--timeout-ms`,
      // `sync --auto`) stops it: the history records the part written, "failed part-way".
      const stop = new AbortController();
      await assert.rejects(
        syncHere(world, world.b, {
          recordPull,
          signal: stop.signal,
          progress: (step) => {
            if (step === "writing pulled files") stop.abort();
          },
        }),
        /aborted/,
      );
      const written = world.b.files().length;
      assert.ok(written > 0 && written < notes.length, `${written} of ${notes.length} written`);
      const [partWay] = (await historyOf(world.b)).filter((entry) => entry.kind === "sync");
      assert.match(partWay.message, /failed part-way/);
      assert.equal((await syncJson(world.b)).pulled, notes.length - written);
      await undo(world.b, partWay.id);
      assert.equal(world.b.files().length, notes.length - written);

      const report = await syncJson(world.b);
      assert.deepEqual({ pulled: report.pulled, pushed: report.pushed }, { pulled: written, pushed: 0 });
      assert.deepEqual(world.remoteFiles(), ["MEMORY.md", ...notes]);
      await syncDeletingNothing(world.a);
      assert.deepEqual(world.a.files(), notes);
    });

    it("keeps a pull known when the sync dies after its history entry, before its state is written", async () => {
      const world = await sharedWorld();
      world.a.write(NEW, memory("a's new memory", "A's new memory", "project"));
      world.a.write(SHARED, memory("shared", "A's version", "project"));
      await syncJson(world.a);
      // The process dies right after the pull's entry is committed: nothing after it runs (the
      // clone's commit, state.json), as under a SIGKILL there.
      const died = new Error("killed after the history entry");
      await assert.rejects(
        syncHere(world, world.b, {
          recordPull: async (memoryDir, change, write) => {
            await recordPull(memoryDir, change, write);
            throw died;
          },
        }),
        (error) => error === died,
      );
      assert.deepEqual(world.b.files(), [NEW, SHARED]);
      assert.equal((await syncJson(world.b)).pulled, 0, "the files are here already");
      await undo(world.b);
      assert.deepEqual(world.b.files(), [SHARED]);
      assert.match(world.b.read(SHARED) ?? "", /the first text/);

      const report = await syncJson(world.b);
      assert.deepEqual({ pulled: report.pulled, pushed: report.pushed }, { pulled: 2, pushed: 0 });
      assert.match(world.remoteText(NEW) ?? "", /A's new memory/);
      assert.match(world.remoteText(SHARED) ?? "", /A's version/);
      await syncDeletingNothing(world.a);
      assert.match(world.a.read(SHARED) ?? "", /A's version/);
    });
  });
}

describe("memdir undo of a pull, then memdir sync: review mode and the team remote", () => {
  it("proposes an undone pull's memories again under review instead of pushing their deletion", async () => {
    const world = makeWorld();
    await initBoth(world);
    world.a.write(NEW, memory("a's new memory", "A's new memory", "project"));
    await syncJson(world.a);
    await syncJson(world.b);
    await undo(world.b);
    assert.deepEqual(world.b.files(), []);

    const review = { MEMDIR_MEMORY_MODE: "review" };
    const result = await world.b.memdir(["sync", "--json"], { env: review });
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as Awaited<ReturnType<typeof syncJson>>;
    assert.equal(report.pushed, 0);
    assert.deepEqual(report.skipped, [{ file: NEW, reason: "waits for review: memdir inbox" }]);
    assert.match(world.remoteText(NEW) ?? "", /A's new memory/);
    // Still waiting at the next sync: the held file keeps the base from before the pull.
    const again = await world.b.memdir(["sync", "--json"], { env: review });
    assert.equal(JSON.parse(again.stdout).pushed, 0);
    assert.match(world.remoteText(NEW) ?? "", /A's new memory/);
    await syncDeletingNothing(world.a);
  });

  it("proposes the remote's changes again when their accepted proposal is undone, instead of pushing the undo", async () => {
    const world = makeWorld();
    await initBoth(world);
    world.a.write(SHARED, memory("shared", "the first text", "project"));
    await syncJson(world.a);
    await syncJson(world.b);
    world.a.write(NEW, memory("a's new memory", "A's new memory", "project"));
    world.a.write(SHARED, memory("shared", "A's version", "project"));
    await syncJson(world.a);

    const review = { MEMDIR_MEMORY_MODE: "review" };
    const reviewSync = async () => {
      const result = await world.b.memdir(["sync", "--json"], { env: review });
      assert.equal(result.code, 0, result.stderr);
      return JSON.parse(result.stdout) as Awaited<ReturnType<typeof syncJson>>;
    };
    assert.equal((await reviewSync()).skipped.length, 2);
    const listed = await world.b.memdir(["inbox", "--json"]);
    const [proposal] = JSON.parse(listed.stdout) as { id: string }[];
    const accepted = await world.b.memdir(["inbox", "accept", proposal.id]);
    assert.equal(accepted.code, 0, accepted.stderr);
    assert.deepEqual(world.b.files(), [NEW, SHARED]);
    assert.equal((await reviewSync()).pushed, 0);
    const { undone } = await undo(world.b);
    assert.equal((await historyOf(world.b)).find((entry) => entry.id === undone.id)?.kind, "apply");
    assert.deepEqual(world.b.files(), [SHARED]);

    const report = await reviewSync();
    assert.equal(report.pushed, 0);
    assert.deepEqual(report.skipped.map((skip) => skip.file).sort(), [NEW, SHARED]);
    assert.match(world.remoteText(NEW) ?? "", /A's new memory/);
    assert.match(world.remoteText(SHARED) ?? "", /A's version/);
    await syncDeletingNothing(world.a);
    assert.match(world.a.read(SHARED) ?? "", /A's version/);
  });

  it("keeps a pull known when the sync is killed with SIGKILL while the clone commits, after the pull's entry", async () => {
    const world = makeWorld();
    await initBoth(world);
    world.a.write(SHARED, memory("shared", "the first text", "project"));
    await syncJson(world.a);
    await syncJson(world.b);
    world.a.write(NEW, memory("a's new memory", "A's new memory", "project"));
    world.a.write(SHARED, memory("shared", "A's version", "project"));
    await syncJson(world.a);
    world.b.write("project-mine.md", memory("b's own", "B's own note", "project")); // so b commits
    // A git on b's PATH that stops at the clone's commit (`fast-import` in the sync's clone, run
    // after the pull and its history entry) until the sync is killed: no timing is guessed.
    const bin = path.join(world.dir, "bin");
    const reached = path.join(world.dir, "fast-import-reached");
    const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
    fs.mkdirSync(bin);
    fs.writeFileSync(
      path.join(bin, "git"),
      `#!/bin/sh\ncase "$PWD $*" in */sync/*fast-import*) touch "${reached}"; exec sleep 600;; esac\nexec "${realGit}" "$@"\n`,
      { mode: 0o755 },
    );
    const child = spawn(process.execPath, [...cliNodeArgs(), "sync", "--json"], {
      cwd: world.b.project,
      env: { PATH: `${bin}:${process.env.PATH ?? ""}`, HOME: world.b.home, NO_COLOR: "1" },
      stdio: "ignore",
      detached: true, // its own process group: the blocked git goes with it
    });
    const closed = new Promise((resolve) => child.on("close", resolve));
    await waitFor(() => fs.existsSync(reached), { what: "the sync at its clone's commit" });
    process.kill(-(child.pid ?? 0), "SIGKILL");
    await closed;
    assert.deepEqual(world.b.files(), ["project-mine.md", NEW, SHARED]);

    await syncJson(world.b);
    await undo(world.b);
    assert.deepEqual(world.b.files(), ["project-mine.md", SHARED]);
    const report = await syncJson(world.b);
    assert.deepEqual({ pulled: report.pulled, pushed: report.pushed }, { pulled: 2, pushed: 0 });
    assert.match(world.remoteText(NEW) ?? "", /A's new memory/);
    assert.match(world.remoteText(SHARED) ?? "", /A's version/);
    await syncDeletingNothing(world.a);
    assert.match(world.a.read(SHARED) ?? "", /A's version/);
  });

  it("keeps the team remote's memory after a team pull is undone", async () => {
    const world = makeWorld();
    await initBoth(world);
    const teamRemote = path.join(world.dir, "team.git");
    gitIn(world.dir, ["init", "-q", "--bare", teamRemote]);
    for (const m of [world.a, world.b]) {
      const init = await m.memdir(["sync", "init", "--team", `file://${teamRemote}`]);
      assert.equal(init.code, 0, init.stderr);
    }
    world.a.write("team/project-release.md", memory("how releases are cut", "tag, then publish", "project"));
    await syncJson(world.a);
    await syncJson(world.b);
    assert.deepEqual(world.b.files(), ["team/project-release.md"]);
    await undo(world.b);
    assert.deepEqual(world.b.files(), []);

    await syncJson(world.b);
    assert.deepEqual(world.b.files(), ["team/project-release.md"]);
    await syncDeletingNothing(world.a);
    assert.deepEqual(world.a.files(), ["team/project-release.md"]);
  });
});

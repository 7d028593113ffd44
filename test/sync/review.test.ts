// memdir sync under `memoryMode: review` (docs/design.md#memory-modes): the remote's changes wait in the inbox
// as one proposal per sync instead of being written. Two machines (temp HOMEs), a local bare
// repository as the remote, real git and real CLI processes.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { gitIn, initBoth, type Machine, makeWorld, memory, syncJson } from "../helpers/sync-machines.ts";

const REVIEW = { MEMDIR_MEMORY_MODE: "review" };

async function reviewSync(m: Machine): Promise<Awaited<ReturnType<typeof syncJson>>> {
  const result = await m.memdir(["sync", "--json"], { env: REVIEW });
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout);
}

interface InboxItem {
  id: string;
  source: string;
  changes: { file: string; action: string }[];
}

async function inbox(m: Machine): Promise<InboxItem[]> {
  const result = await m.memdir(["inbox", "--json"]);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout);
}

async function add(m: Machine, description: string, body: string): Promise<void> {
  const saved = await m.memdir(["add", "--type", "project", "--description", description, body]);
  assert.equal(saved.code, 0, saved.stderr);
}

/** Machine a and b share `project-shared-note.md` (synced in auto mode). */
async function sharedWorld() {
  const world = makeWorld();
  await initBoth(world);
  await add(world.a, "shared note", "the first text");
  await syncJson(world.a);
  await syncJson(world.b);
  assert.deepEqual(world.b.files(), ["project-shared-note.md"]);
  return world;
}

const SHARED = "project-shared-note.md";

describe("memdir sync with memoryMode: review", () => {
  it("holds a teammate's new memory and edit as one proposal, pushes the user's own, and settles on accept", async () => {
    const world = await sharedWorld();
    const before = world.b.read(SHARED);
    const edited = (world.a.read(SHARED) ?? "").replace("the first text", "the edited text");
    world.a.write(SHARED, edited);
    await add(world.a, "tuesday deploys", "deploys on tuesday");
    await syncJson(world.a);

    const first = await reviewSync(world.b);
    assert.equal(first.pulled, 0);
    assert.deepEqual(first.skipped.map((s) => [s.file, s.reason]).sort(), [
      [SHARED, "waits for review: memdir inbox"],
      ["project-tuesday-deploys.md", "waits for review: memdir inbox"],
    ]);
    assert.deepEqual(world.b.files(), [SHARED]);
    assert.equal(world.b.read(SHARED), before);
    const waiting = await inbox(world.b);
    assert.equal(waiting.length, 1);
    assert.equal(waiting[0].source, "sync");
    assert.deepEqual(waiting[0].changes.map((c) => [c.file, c.action]).sort(), [
      [SHARED, "update"],
      ["project-tuesday-deploys.md", "add"],
    ]);
    // The remote keeps a's versions: holding them never pushed b's old text or a deletion.
    assert.equal(world.remoteText(SHARED), edited);

    // b's own new memory still goes out; the second sync makes no second proposal.
    await add(world.b, "short commits", "short commits");
    const second = await reviewSync(world.b);
    assert.equal(second.pushed, 1);
    assert.ok(world.remoteText("project-short-commits.md"));
    assert.equal(second.skipped.length, 2);
    assert.equal((await inbox(world.b)).length, 1);
    assert.equal(world.remoteText(SHARED), edited);
    assert.ok(world.remoteText("project-tuesday-deploys.md"));

    const accepted = await world.b.memdir(["inbox", "accept", waiting[0].id]);
    assert.equal(accepted.code, 0, accepted.stderr);
    assert.equal(world.b.read(SHARED), edited);
    assert.equal(world.b.read("project-tuesday-deploys.md"), world.a.read("project-tuesday-deploys.md"));
    const settled = await reviewSync(world.b);
    assert.deepEqual(
      { pulled: settled.pulled, pushed: settled.pushed, skipped: settled.skipped },
      { pulled: 0, pushed: 0, skipped: [] },
    );
    assert.deepEqual(await inbox(world.b), []);
  });

  it("does not propose a rejected text again, proposes a newer one, and proposes a deletion instead of applying it", async () => {
    const world = await sharedWorld();
    await add(world.a, "temporary scaffold", "temporary");
    await syncJson(world.a);
    await syncJson(world.b);
    const original = world.b.read(SHARED);
    world.a.write(SHARED, (world.a.read(SHARED) ?? "").replace("the first text", "version one"));
    await syncJson(world.a);
    await reviewSync(world.b);
    const [proposal] = await inbox(world.b);
    const rejected = await world.b.memdir(["inbox", "reject", proposal.id]);
    assert.equal(rejected.code, 0, rejected.stderr);

    const again = await reviewSync(world.b);
    assert.deepEqual(again.skipped, [{ file: SHARED, reason: "rejected in review" }]);
    assert.deepEqual(await inbox(world.b), []);
    assert.equal(world.b.read(SHARED), original);
    assert.match(world.remoteText(SHARED) ?? "", /version one/);

    world.a.write(SHARED, (world.a.read(SHARED) ?? "").replace("version one", "version two"));
    fs.rmSync(path.join(world.a.memoryDir, "project-temporary-scaffold.md"));
    await syncJson(world.a);
    assert.equal(world.remoteText("project-temporary-scaffold.md"), null);
    const newer = await reviewSync(world.b);
    assert.deepEqual(
      newer.skipped.map((s) => s.reason),
      ["waits for review: memdir inbox", "waits for review: memdir inbox"],
    );
    const [next] = await inbox(world.b);
    assert.deepEqual(next.changes.map((c) => [c.file, c.action]).sort(), [
      [SHARED, "update"],
      ["project-temporary-scaffold.md", "delete"],
    ]);
    // The deletion waits: b keeps the file, and never pushes it back to the remote.
    assert.ok(world.b.read("project-temporary-scaffold.md"));
    await reviewSync(world.b);
    assert.equal(world.remoteText("project-temporary-scaffold.md"), null);
    assert.equal((await inbox(world.b)).length, 1);

    const accepted = await world.b.memdir(["inbox", "accept", next.id]);
    assert.equal(accepted.code, 0, accepted.stderr);
    assert.equal(world.b.read("project-temporary-scaffold.md"), null);
    assert.match(world.b.read(SHARED) ?? "", /version two/);
    const settled = await reviewSync(world.b);
    assert.deepEqual(
      { pulled: settled.pulled, pushed: settled.pushed, skipped: settled.skipped },
      { pulled: 0, pushed: 0, skipped: [] },
    );
    assert.equal(world.remoteText("project-temporary-scaffold.md"), null);
  });

  it("proposes a conflict file instead of writing it, and pushes both sides once it is accepted", async () => {
    const world = await sharedWorld();
    const theirs = (world.a.read(SHARED) ?? "").replace("the first text", "a's text");
    const ours = (world.b.read(SHARED) ?? "").replace("the first text", "b's text");
    world.a.write(SHARED, theirs);
    await syncJson(world.a);
    world.b.write(SHARED, ours);
    const held = await reviewSync(world.b);
    assert.equal(held.pushed, 0);
    assert.equal(held.skipped.length, 1);
    assert.match(held.skipped[0].file, /^project-shared-note\.conflict-[0-9a-f]{8}\.md$/);
    assert.deepEqual(world.b.files(), [SHARED]);
    assert.equal(world.remoteText(SHARED), theirs);
    const [proposal] = await inbox(world.b);
    assert.deepEqual(
      proposal.changes.map((c) => c.action),
      ["add"],
    );
    assert.equal((await world.b.memdir(["inbox", "accept", proposal.id])).code, 0);
    const conflictFile = held.skipped[0].file;
    assert.match(world.b.read(conflictFile) ?? "", /a's text/);
    const merged = await reviewSync(world.b);
    assert.deepEqual({ pushed: merged.pushed, skipped: merged.skipped }, { pushed: 2, skipped: [] });
    assert.equal(world.remoteText(SHARED), ours);
    assert.match(world.remoteText(conflictFile) ?? "", /a's text/);
    assert.deepEqual(await inbox(world.b), []);
    const quiet = await reviewSync(world.b);
    assert.deepEqual({ pulled: quiet.pulled, pushed: quiet.pushed }, { pulled: 0, pushed: 0 });
  });

  it("manual mode holds the remote's memory for review too: nothing is written without an explicit accept", async () => {
    const world = makeWorld();
    await initBoth(world);
    await add(world.a, "tuesday deploys", "deploys on tuesday");
    await syncJson(world.a);
    const result = await world.b.memdir(["sync", "--json"], { env: { MEMDIR_MEMORY_MODE: "manual" } });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout).skipped, [
      { file: "project-tuesday-deploys.md", reason: "waits for review: memdir inbox" },
    ]);
    assert.deepEqual(world.b.files(), []);
    assert.equal((await inbox(world.b)).length, 1);
  });

  it("holds the team remote's memory in the memory dir's inbox, named under team/", async () => {
    const world = makeWorld();
    await initBoth(world);
    const teamRemote = path.join(world.dir, "team.git");
    gitIn(world.dir, ["init", "-q", "--bare", teamRemote]);
    for (const m of [world.a, world.b])
      assert.equal((await m.memdir(["sync", "init", "--team", `file://${teamRemote}`])).code, 0);
    world.a.write("team/project-release.md", memory("how releases are cut", "tag, then publish", "project"));
    await syncJson(world.a);
    const report = await reviewSync(world.b);
    assert.deepEqual((report as { team?: { skipped: unknown } }).team?.skipped, [
      { file: "project-release.md", reason: "waits for review: memdir inbox" },
    ]);
    assert.deepEqual(world.b.files(), []);
    const [proposal] = await inbox(world.b);
    assert.deepEqual(
      proposal.changes.map((c) => c.file),
      ["team/project-release.md"],
    );
    assert.equal((await world.b.memdir(["inbox", "accept", proposal.id])).code, 0);
    assert.equal(world.b.read("team/project-release.md"), world.a.read("team/project-release.md"));
    const settled = (await reviewSync(world.b)) as { team?: { pulled: number; pushed: number } };
    assert.deepEqual(
      { pulled: settled.team?.pulled, pushed: settled.team?.pushed },
      { pulled: 0, pushed: 0 },
    );
  });
});

// Two checkouts of one repository on one machine (docs/design.md#sync, "One state per memory
// dir"): one project key, so one folder in the remote and one clone, but two memory dirs, each
// with its own base, stat cache, quiet digest, review and pulls. Real git, a local bare remote.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { cloneDir } from "../../src/sync/remotes.ts";
import {
  initBoth,
  type Machine,
  makeWorld,
  memory,
  otherCheckout,
  PROJECT_KEY,
  syncJson,
  type World,
} from "../helpers/sync-machines.ts";

/** What a sync did, without what it reports as held. */
async function moved(m: Machine): Promise<{ pulled: number; pushed: number }> {
  const report = await syncJson(m);
  return { pulled: report.pulled, pushed: report.pushed };
}

/** The remote's memories, its index left out (what it holds depends on who pushed last). */
function remoteMemories(world: World): string[] {
  return world.remoteFiles().filter((file) => file !== "MEMORY.md");
}

async function status(m: Machine): Promise<{ ahead: number; behind: number }> {
  const result = await m.memdir(["sync", "--status", "--json"]);
  assert.equal(result.code, 0, result.stderr);
  const parsed = JSON.parse(result.stdout) as { ahead: number; behind: number };
  return { ahead: parsed.ahead, behind: parsed.behind };
}

/** Machine a's first checkout with `g.md` and `h.md` synced, machine b holding them too. */
async function syncedPair(world: World): Promise<void> {
  await initBoth(world);
  world.a.write("g.md", memory("g", "g v1"));
  world.a.write("h.md", memory("h", "h v1"));
  // Older than the stat cache's racy window (2 s), so the sync keeps their entries, as it does
  // for any memory not saved in the last moments before a sync.
  await sleep(2_100);
  await syncJson(world.a);
  await syncJson(world.b);
  assert.deepEqual(world.b.files(), ["g.md", "h.md"]);
}

/**
 * Rewrites the clone's state.json and stat-cache.json into the shape memdir wrote before each
 * memory dir had its own entry: one entry per project key.
 */
function toProjectKeyShape(m: Machine, remoteUrl: string): void {
  const clone = cloneDir(path.join(m.home, ".claude"), remoteUrl);
  const statePath = path.join(clone, "state.json");
  const state = JSON.parse(fs.readFileSync(statePath, "utf8")) as { projects: Record<string, unknown> };
  const byKey = (entries: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(entries).map(([id, entry]) => [
        id.startsWith(`${PROJECT_KEY}:`) ? PROJECT_KEY : id,
        entry,
      ]),
    );
  assert.equal(Object.keys(state.projects).length, 1);
  fs.writeFileSync(statePath, JSON.stringify({ ...state, projects: byKey(state.projects) }, null, 2));
  const cachePath = path.join(clone, "stat-cache.json");
  const caches = JSON.parse(fs.readFileSync(cachePath, "utf8")) as Record<string, unknown>;
  fs.writeFileSync(cachePath, JSON.stringify(byKey(caches)));
}

describe("memdir sync: two checkouts of one repository on one machine", () => {
  it("the second checkout pulls the first's memories and deletes nothing; both converge", async () => {
    const world = makeWorld();
    await syncedPair(world);
    const second = otherCheckout(world.a, "shop2");
    assert.notEqual(second.memoryDir, world.a.memoryDir);
    // Its empty memory dir is not read against the first checkout's base: nothing to delete.
    assert.deepEqual(await status(second), { ahead: 0, behind: 2 });
    assert.deepEqual(await moved(second), { pulled: 2, pushed: 0 });
    assert.deepEqual(second.files(), ["g.md", "h.md"]);
    assert.deepEqual(remoteMemories(world), ["g.md", "h.md"]);
    assert.deepEqual(await moved(world.b), { pulled: 0, pushed: 0 });
    assert.deepEqual(world.b.files(), ["g.md", "h.md"]);
    // Both checkouts still share the project's folder in the remote.
    second.write("s.md", memory("from the second checkout", "s"));
    assert.deepEqual(await moved(second), { pulled: 0, pushed: 1 });
    assert.deepEqual(await moved(world.a), { pulled: 1, pushed: 0 });
    assert.deepEqual(world.a.files(), ["g.md", "h.md", "s.md"]);
    // A deletion in one checkout reaches the other as a deletion, not a push back.
    fs.rmSync(path.join(world.a.memoryDir, "g.md"));
    assert.deepEqual(await moved(world.a), { pulled: 0, pushed: 1 });
    assert.deepEqual(await moved(second), { pulled: 1, pushed: 0 });
    assert.deepEqual(second.files(), ["h.md", "s.md"]);
    for (const m of [world.a, second, world.b]) await syncJson(m);
    for (const m of [world.a, second, world.b]) {
      assert.deepEqual(await moved(m), { pulled: 0, pushed: 0 });
      assert.deepEqual(m.files(), ["h.md", "s.md"]);
    }
    assert.deepEqual(remoteMemories(world), ["h.md", "s.md"]);
  });

  it("a state.json of one entry per project key is adopted by the memory dir it belonged to", async () => {
    const world = makeWorld();
    await syncedPair(world);
    toProjectKeyShape(world.a, world.remoteUrl);
    // The other checkout syncs first after the upgrade: the old entry is not its own.
    const second = otherCheckout(world.a, "shop2");
    assert.deepEqual(await moved(second), { pulled: 2, pushed: 0 });
    assert.deepEqual(remoteMemories(world), ["g.md", "h.md"]);
    // The first checkout keeps its base: nothing to do, then its deletion and edit go out as such
    // (with no base they would be a memory pulled back and a conflict).
    assert.deepEqual(await moved(world.a), { pulled: 0, pushed: 0 });
    fs.rmSync(path.join(world.a.memoryDir, "g.md"));
    world.a.write("h.md", memory("h", "h v2"));
    assert.deepEqual(await moved(world.a), { pulled: 0, pushed: 2 });
    assert.deepEqual(remoteMemories(world), ["h.md"]);
    assert.deepEqual(await moved(second), { pulled: 2, pushed: 0 });
    assert.deepEqual(await moved(world.b), { pulled: 2, pushed: 0 });
    for (const m of [world.a, second, world.b]) {
      assert.deepEqual(m.files(), ["h.md"]);
      assert.equal(m.read("h.md"), memory("h", "h v2"));
    }
    const clone = cloneDir(path.join(world.a.home, ".claude"), world.remoteUrl);
    const state = JSON.parse(fs.readFileSync(path.join(clone, "state.json"), "utf8")) as {
      projects: Record<string, unknown>;
    };
    assert.equal(state.projects[PROJECT_KEY], undefined, "the old entry was adopted, not kept");
    assert.equal(Object.keys(state.projects).length, 2);
  });
});

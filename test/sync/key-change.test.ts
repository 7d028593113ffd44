// A project's key changes when its origin remote is added or changed
// (docs/design.md#project-identity): the memory then syncs into another folder of the sync
// repository, and clones that still compute the old key no longer meet it. A sync says so, with
// both keys; `--status` says it too and leaves it for the sync to report. Real git, a local bare remote.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { gitIn, makeWorld, memory, PROJECT_KEY, syncJson, type World } from "../helpers/sync-machines.ts";

/** The folders of the remote's main branch, at every depth. */
function remoteFolders(world: World): string[] {
  return gitIn(world.remoteDir, ["ls-tree", "-d", "-r", "--name-only", "main"]).split("\n").filter(Boolean);
}

/**
 * Machine a's project as it was before its origin was added (keyed by its first commit), one
 * memory synced under that key; returns the world and that first sync's report.
 */
async function syncedWithoutOrigin(): Promise<{
  world: World;
  first: { pushed: number; keyChanged?: unknown };
}> {
  const world = makeWorld();
  gitIn(world.a.project, ["remote", "remove", "origin"]);
  assert.equal((await world.a.memdir(["sync", "init", world.remoteUrl])).code, 0);
  world.a.write("user-role.md", memory("role", "the user is a backend engineer"));
  return { world, first: await syncJson(world.a) };
}

describe("memdir sync: the project's key changed since its last sync", () => {
  it("names the old and the new key, in the report, in --status and on the terminal", async () => {
    const { world, first } = await syncedWithoutOrigin();
    const a = world.a;
    assert.equal(first.pushed > 0, true);
    assert.equal(first.keyChanged, undefined);
    const before = remoteFolders(world);
    const oldKey = before.find((folder) => folder.startsWith("commit/"));
    assert.ok(oldKey, `the remote holds a commit/ folder: ${before.join(", ")}`);

    gitIn(a.project, ["remote", "add", "origin", "git@github.com:acme/shop.git"]);
    const status = await a.memdir(["sync", "--status", "--json"]);
    assert.equal(status.code, 0, status.stderr);
    assert.deepEqual(JSON.parse(status.stdout).keyChanged, { from: oldKey, to: PROJECT_KEY });
    const statusText = await a.memdir(["sync", "--status"]);
    assert.match(statusText.stdout, /project key changed: commit\/\w+ → github\.com\/acme\/shop/);

    const second = (await syncJson(a)) as { keyChanged?: unknown; pushed: number };
    assert.deepEqual(second.keyChanged, { from: oldKey, to: PROJECT_KEY });
    // The memory went to the new key's folder; the old one is still in the remote.
    assert.deepEqual(world.remoteFiles(), ["user-role.md"]);
    assert.ok(remoteFolders(world).includes(oldKey));

    // Said once: the next sync uses the new key as the project's own.
    const third = (await syncJson(a)) as { keyChanged?: unknown };
    assert.equal(third.keyChanged, undefined);
  });

  it("a sync on the terminal prints the change as one line", async () => {
    const { world } = await syncedWithoutOrigin();
    const a = world.a;
    gitIn(a.project, ["remote", "add", "origin", "git@github.com:acme/shop.git"]);
    const result = await a.memdir(["sync"]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      /^project key changed: commit\/\w+ → github\.com\/acme\/shop \(its origin remote was added or changed\); this sync used the new one\./m,
    );
  });
});

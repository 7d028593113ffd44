import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { PersistedCaches } from "../../src/memdir/cache/persisted-cache.ts";
import { openMemdir } from "../../src/memdir/instance.ts";
import { coreOf } from "../../src/memdir/scan/instance-core.ts";
import { scanHeaders } from "../../src/memdir/scan/scan.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

// Every instance here gets an empty environment (whatever the runner's says); folders are then
// watched on Linux only, so the watch-set assertions run only there.
const env = {};
const watching = process.platform === "linux";

function memoryDirWith(count: number, topic: string): string {
  const dir = makeTempDir();
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++)
    files[`${topic}-${i}.md`] = `---\ndescription: ${topic} note ${i}\ntype: project\n---\n${topic} ${i}\n`;
  writeTree(dir, files);
  return dir;
}

describe("openMemdir", () => {
  it("gives two instances on two directories nothing in common", async () => {
    const a = openMemdir(memoryDirWith(3, "alpha"), { env });
    const b = openMemdir(memoryDirWith(2, "beta"), { env });
    try {
      assert.notEqual(coreOf(a).headerCache, coreOf(b).headerCache);
      assert.notEqual(coreOf(a).persisted, coreOf(b).persisted);
      assert.notEqual(coreOf(a).listed, coreOf(b).listed);
      assert.notEqual(coreOf(a).readChunk, coreOf(b).readChunk);
      if (watching) assert.notEqual(coreOf(a).watchers, coreOf(b).watchers);

      assert.equal((await a.scan()).length, 3);
      assert.equal((await a.scan()).length, 3);
      assert.deepEqual(b.stats().cache.headers, { hits: 0, misses: 0 }, "b counted nothing of a's scans");
      assert.equal(coreOf(b).headerCache?.size, 0, "b cached none of a's headers");
      assert.deepEqual(b.stats().watch, { watchedRescans: 0, watchSetsBuilt: 0 });
      assert.deepEqual(a.stats().cache.headers, { hits: 3, misses: 3 });

      assert.equal((await b.scan()).length, 2);
      assert.deepEqual(b.stats().cache.headers, { hits: 0, misses: 2 });
      assert.equal(coreOf(a).headerCache?.size, 3, "b's scan left a's cache alone");

      if (watching) {
        assert.deepEqual(a.stats().watch, { watchedRescans: 1, watchSetsBuilt: 1 });
        await a.close();
        assert.equal(coreOf(a).watchers?.watchedRoots, 0, "a's watchers are closed");
        fs.writeFileSync(path.join(b.memoryDir, "beta-new.md"), "---\ndescription: new\n---\nnew\n");
        assert.equal((await b.scan()).length, 3, "b's watchers still see changes");
        assert.equal(b.stats().watch.watchedRescans, 1, "served by b's own watch set");
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("scans the same with or without its caches, before and after close", async () => {
    const dir = memoryDirWith(4, "gamma");
    const fresh = await scanHeaders(dir, { cache: null });
    const memdir = openMemdir(dir, { cache: "memory", env });
    const off = openMemdir(dir, { cache: "off", env });
    assert.equal(coreOf(off).headerCache, null);
    assert.equal(coreOf(off).watchers, null, "no cache, no watchers");
    assert.deepEqual(await off.scan(), fresh);
    assert.deepEqual(await memdir.scan(), fresh);
    assert.deepEqual(await memdir.scan(), fresh);
    await memdir.close();
    fs.writeFileSync(path.join(dir, "gamma-late.md"), "---\ndescription: late\n---\nlate\n");
    const after = await memdir.scan();
    assert.deepEqual(after, await scanHeaders(dir, { cache: null }), "a closed instance still scans right");
    assert.equal(memdir.stats().watch.watchSetsBuilt, watching ? 1 : 0, "and builds no new watch set");
  });

  it("counts nothing and watches nothing before its first scan, even when closed first", async () => {
    const dir = memoryDirWith(2, "delta");
    const memdir = openMemdir(dir, { env });
    assert.deepEqual(memdir.stats(), {
      cache: structuredClone(new PersistedCaches({ enabled: true }).stats),
      watch: { watchedRescans: 0, watchSetsBuilt: 0 },
    });
    await memdir.flush();
    await memdir.close();
    assert.equal((await memdir.scan()).length, 2, "a closed instance still scans");
    assert.equal(coreOf(memdir).watchers?.watchedRoots ?? 0, 0, "and keeps no folder watched");
    assert.equal((await memdir.scan()).length, 2);
    assert.equal(memdir.stats().watch.watchedRescans, 0);
    assert.deepEqual(memdir.stats().cache.headers, { hits: 2, misses: 2 });
  });

  it("takes its switches from options and the environment it is given", () => {
    const dir = makeTempDir();
    const noWatch = openMemdir(dir, { env: { MEMDIR_NO_WATCH: "1" } });
    assert.equal(coreOf(noWatch).watchers, null);
    assert.equal(coreOf(openMemdir(dir, { watch: false })).watchers, null);
    const noCache = openMemdir(dir, { env: { MEMDIR_NO_CACHE: "1" } });
    assert.equal(coreOf(noCache).persisted.enabled, false);
    assert.equal(coreOf(noCache).headerCache?.persist, false, "headers are still kept in memory");
    const persisted = openMemdir(dir, { env: {} });
    assert.equal(coreOf(persisted).persisted.enabled, true);
    assert.equal(
      coreOf(persisted).headerCache?.persisted,
      coreOf(persisted).persisted,
      "the header cache saves through its owner",
    );
    assert.equal(coreOf(openMemdir(dir, { cache: "memory", env: {} })).persisted.enabled, false);
    // Read when the instance is made, as before its caches were made on first use.
    const later: NodeJS.ProcessEnv = {};
    const early = openMemdir(dir, { env: later });
    later.MEMDIR_NO_CACHE = "1";
    assert.equal(coreOf(early).persisted.enabled, true, "a switch set after opening changes nothing");
    const clock = () => 42;
    assert.equal(openMemdir(dir, { clock }).clock, clock);
    assert.equal(openMemdir(`${dir}/./`).memoryDir, dir, "the directory is resolved");
  });
});

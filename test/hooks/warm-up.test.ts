import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { readWarmUpMarker, warmUp, warmUpDecision } from "../../src/hooks/warm-up.ts";
import { makeTempDir } from "../helpers/temp.ts";

function memoryDirWith(count: number): string {
  const memoryDir = path.join(makeTempDir("memdir-warm-"), "memory");
  fs.mkdirSync(path.join(memoryDir, "deep"), { recursive: true });
  for (let i = 0; i < count; i++) {
    const file = path.join(memoryDir, i % 2 ? "deep" : "", `note-${i}.md`);
    fs.writeFileSync(
      file,
      `---\ndescription: note ${i} about topic ${i % 17}\ntype: project\n---\nbody ${i}\n`,
    );
  }
  fs.writeFileSync(path.join(memoryDir, "MEMORY.md"), "- index\n");
  return memoryDir;
}

describe("warmUpDecision / warmUp", () => {
  it("asks for a warm-up only when a big dir's caches are missing or stale", async () => {
    const memoryDir = memoryDirWith(500);
    const cold = await warmUpDecision(memoryDir, {});
    assert.deepEqual(cold, { warm: true, reason: "500 memories and no warm caches yet" });

    const outcome = await warmUp(memoryDir, {});
    assert.equal(outcome.status, "warmed");
    assert.equal((await readWarmUpMarker(memoryDir))?.memories, 500);
    assert.deepEqual(await warmUpDecision(memoryDir, {}), { warm: false, reason: "the caches are warm" });

    // A cache file rewritten since (a bounded hook saved a partial index): warm again.
    const lexical = path.join(memoryDir, ".memdir-cache", "lexical.bin");
    fs.appendFileSync(lexical, "x");
    assert.deepEqual(await warmUpDecision(memoryDir, {}), {
      warm: true,
      reason: "the cache files changed since the last warm-up",
    });
  });

  it("never for a small dir, a missing dir, or with MEMDIR_NO_CACHE=1", async () => {
    const small = memoryDirWith(20);
    assert.equal((await warmUpDecision(small, {})).warm, false);
    assert.equal((await warmUp(small, {})).status, "not-needed");
    assert.equal(fs.existsSync(path.join(small, ".memdir-cache", "lexical.bin")), false);
    assert.equal((await warmUpDecision(path.join(small, "missing"), {})).warm, false);
    const big = memoryDirWith(500);
    assert.match((await warmUpDecision(big, { MEMDIR_NO_CACHE: "1" })).reason, /MEMDIR_NO_CACHE/);
  });
});

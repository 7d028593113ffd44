import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { runCliInProcess } from "../helpers/cli.ts";
import { memory } from "../helpers/memory.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

function fixture() {
  const home = makeTempDir();
  const memoryDir = path.join(home, "project", "memory");
  writeTree(memoryDir, {
    "MEMORY.md": "- [A](a.md) — tests hit a real db\n- [B](b.md) — tests hit a real db\n",
    "a.md": memory("tests hit a real db", "Never mock the database."),
    "b.md": memory("Tests hit a real DB.", "never mock the database"),
  });
  return { home, memoryDir };
}

describe("memdir history", () => {
  it("says there is no history before the first consolidation", async () => {
    const { home, memoryDir } = fixture();
    const result = await runCliInProcess(["history", "--dir", memoryDir], { home });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /no history yet/);
  });

  it("lists a consolidation with the files it changed, and saves made since as a snapshot", async () => {
    const { home, memoryDir } = fixture();
    assert.equal((await runCliInProcess(["dream", "--force", "--dir", memoryDir], { home })).code, 0);
    writeTree(memoryDir, { "c.md": memory("a new rule", "Saved by hand.") });
    assert.equal((await runCliInProcess(["undo", "--dir", memoryDir], { home })).code, 0);

    const text = await runCliInProcess(["history", "--dir", memoryDir], { home });
    assert.match(text.stdout, /dedupe: merged/);
    assert.match(text.stdout, / {4}- [ab]\.md/);
    assert.match(text.stdout, /undone by/);

    const json = JSON.parse(
      (await runCliInProcess(["history", "--json", "--dir", memoryDir], { home })).stdout,
    );
    assert.ok(["git", "journal"].includes(json.backend));
    const kinds = json.entries.map((e: { kind: string }) => e.kind);
    assert.deepEqual(kinds.slice(0, 3), ["undo", "snapshot", "dedupe"]);
    const snapshot = json.entries[1];
    assert.deepEqual(snapshot.changes, [{ file: "c.md", change: "added" }]);
    assert.ok(fs.existsSync(path.join(memoryDir, "c.md")), "undoing the dedupe kept the later save");
  });
});

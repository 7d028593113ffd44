import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { runCli } from "../helpers/cli.ts";
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

const readAll = (dir: string) =>
  Object.fromEntries(
    fs
      .readdirSync(dir)
      .filter((f) => f.endsWith(".md"))
      .sort()
      .map((f) => [f, fs.readFileSync(path.join(dir, f), "utf8")]),
  );

describe("memdir undo", () => {
  it("restores what the last consolidation removed and rewrote", async () => {
    const { home, memoryDir } = fixture();
    const before = readAll(memoryDir);
    const dream = JSON.parse(
      (await runCli(["dream", "--force", "--json", "--dir", memoryDir], { home })).stdout,
    );
    assert.equal(dream.status, "done");
    assert.notDeepEqual(readAll(memoryDir), before);

    const undo = await runCli(["undo", "--json", "--dir", memoryDir], { home });
    assert.equal(undo.code, 0, undo.stderr);
    const report = JSON.parse(undo.stdout);
    assert.equal(report.undone.id, dream.historyId);
    assert.equal(report.entry.kind, "undo");
    assert.deepEqual(readAll(memoryDir), before);
  });

  it("takes an id, and fails clearly when there is nothing to undo or the id is unknown", async () => {
    const { home, memoryDir } = fixture();
    const nothing = await runCli(["undo", "--dir", memoryDir], { home });
    assert.equal(nothing.code, 1);
    assert.match(nothing.stderr, /nothing to undo/);

    const dream = JSON.parse(
      (await runCli(["dream", "--force", "--json", "--dir", memoryDir], { home })).stdout,
    );
    const unknown = await runCli(["undo", "ffffffffff", "--dir", memoryDir], { home });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no history entry/);

    const byId = await runCli(["undo", dream.historyId, "--dir", memoryDir], { home });
    assert.equal(byId.code, 0, byId.stderr);
    const twice = await runCli(["undo", dream.historyId, "--dir", memoryDir], { home });
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /already undone/);
  });
});

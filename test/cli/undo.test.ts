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
      (await runCliInProcess(["dream", "--force", "--json", "--dir", memoryDir], { home })).stdout,
    );
    assert.equal(dream.status, "done");
    assert.notDeepEqual(readAll(memoryDir), before);

    const undo = await runCliInProcess(["undo", "--json", "--dir", memoryDir], { home });
    assert.equal(undo.code, 0, undo.stderr);
    const report = JSON.parse(undo.stdout);
    assert.equal(report.undone.id, dream.historyId);
    assert.equal(report.entry.kind, "undo");
    assert.deepEqual(readAll(memoryDir), before);
  });

  it("takes an id, and fails clearly when there is nothing to undo or the id is unknown", async () => {
    const { home, memoryDir } = fixture();
    const nothing = await runCliInProcess(["undo", "--dir", memoryDir], { home });
    assert.equal(nothing.code, 1);
    assert.match(nothing.stderr, /nothing to undo/);

    const dream = JSON.parse(
      (await runCliInProcess(["dream", "--force", "--json", "--dir", memoryDir], { home })).stdout,
    );
    const unknown = await runCliInProcess(["undo", "ffffffffff", "--dir", memoryDir], { home });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no history entry/);

    const byId = await runCliInProcess(["undo", dream.historyId, "--dir", memoryDir], { home });
    assert.equal(byId.code, 0, byId.stderr);
    const twice = await runCliInProcess(["undo", dream.historyId, "--dir", memoryDir], { home });
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /already undone/);
  });
});

describe("memdir undo after forget and rm", () => {
  /** Three distinct memories and their index lines, plus an index heading and a note line. */
  function distinct() {
    const home = makeTempDir();
    const memoryDir = path.join(home, "project", "memory");
    writeTree(memoryDir, {
      "MEMORY.md":
        "# Memory\n\n- [Deploys](deploys.md) — deploys run on fridays\n" +
        "- [Database](database.md) — integration tests hit a real database\n" +
        "- [Reviews](reviews.md) — two reviewers for every migration\n",
      "deploys.md": memory("deploys run on fridays", "We deploy on Fridays after the standup.", "project"),
      "database.md": memory("integration tests hit a real database", "Never mock the database."),
      "reviews.md": memory("two reviewers for every migration", "Migrations need two approvals."),
    });
    return { home, memoryDir };
  }

  it("memdir forget then memdir undo brings back the memory and its index line, and says what it undid", async () => {
    const { home, memoryDir } = fixture();
    // An older consolidation in the history: a plain undo must not reach past the forget to it.
    const dream = JSON.parse(
      (await runCliInProcess(["dream", "--force", "--json", "--dir", memoryDir], { home })).stdout,
    );
    assert.equal(dream.status, "done");
    writeTree(memoryDir, {
      "deploys.md": memory("deploys run on fridays", "We deploy on Fridays.", "project"),
    });
    fs.appendFileSync(
      path.join(memoryDir, "MEMORY.md"),
      "- [Deploys](deploys.md) — deploys run on fridays\n",
    );
    const before = readAll(memoryDir);

    const forget = await runCliInProcess(["forget", "deploys on fridays", "--yes", "--dir", memoryDir], {
      home,
    });
    assert.equal(forget.code, 0, forget.stderr);
    assert.equal(fs.existsSync(path.join(memoryDir, "deploys.md")), false);

    const undo = await runCliInProcess(["undo", "--dir", memoryDir], { home });
    assert.equal(undo.code, 0, undo.stderr);
    assert.deepEqual(
      readAll(memoryDir),
      before,
      "the memory and its index line are back, nothing else changed",
    );
    assert.match(undo.stdout, /^undid [0-9a-f]{12} \(memdir forget, \d{4}-\d\d-\d\dT/);
    assert.match(undo.stdout, /deploys\.md/);
  });

  it("memdir rm then memdir undo --json names the entry, its command and files, and keeps later index lines", async () => {
    const { home, memoryDir } = distinct();
    const before = readAll(memoryDir);
    const rm = await runCliInProcess(["rm", "database.md", "--dir", memoryDir], { home });
    assert.equal(rm.code, 0, rm.stderr);
    // A later, unrelated save adds a line right where the removed one was.
    const add = await runCliInProcess(
      [
        "add",
        "--type",
        "user",
        "--description",
        "prefers short answers",
        "--file",
        "style.md",
        "Be brief.",
        "--dir",
        memoryDir,
      ],
      { home },
    );
    assert.equal(add.code, 0, add.stderr);
    const history = JSON.parse(
      (await runCliInProcess(["history", "--json", "--dir", memoryDir], { home })).stdout,
    );
    const rmEntry = history.entries.find((e: { kind: string }) => e.kind === "rm");
    assert.ok(rmEntry, "memdir rm is recorded in the history");

    const undo = await runCliInProcess(["undo", rmEntry.id, "--json", "--dir", memoryDir], { home });
    assert.equal(undo.code, 0, undo.stderr);
    const report = JSON.parse(undo.stdout);
    assert.equal(report.undone.id, rmEntry.id);
    assert.equal(report.undone.command, "memdir rm");
    assert.deepEqual(report.undone.files.sort(), ["MEMORY.md", "database.md"]);
    const after = readAll(memoryDir);
    assert.equal(after["database.md"], before["database.md"], "the memory is back byte for byte");
    assert.equal(
      after["MEMORY.md"],
      `${before["MEMORY.md"]}- [Style](style.md) — prefers short answers\n`,
      "its index line is back in its place, and the later line stays",
    );
  });
});

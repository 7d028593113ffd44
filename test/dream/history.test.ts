import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { beginChange, listHistory, recordChange, undoChange } from "../../src/dream/history.ts";
import { initGitHistory } from "../../src/dream/history-git.ts";
import type { HistoryBackendName } from "../../src/dream/history-types.ts";
import { listTrackedFiles } from "../../src/memdir/write/scratch.ts";
import { memory } from "../helpers/memory.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

function seed(): string {
  const dir = makeTempDir();
  writeTree(dir, {
    "MEMORY.md": "- [A](a.md) — a\n- [B](b.md) — b\n- [C](c.md) — c\n",
    "a.md": memory("tests hit a real database", "Never mock the DB."),
    "b.md": memory("tests must use a real database", "Do not mock the database."),
    "c.md": memory("deploys on fridays", "We deploy on Fridays.", "project"),
  });
  return dir;
}

const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), "utf8");

/** What a consolidation might do: merge b into a, delete c, rewrite the index. */
function consolidate(dir: string): void {
  fs.writeFileSync(
    path.join(dir, "a.md"),
    memory("tests hit a real database", "Never mock the DB.\nDo not mock it."),
  );
  fs.rmSync(path.join(dir, "b.md"));
  fs.rmSync(path.join(dir, "c.md"));
  fs.writeFileSync(path.join(dir, "MEMORY.md"), "- [A](a.md) — a\n");
  fs.writeFileSync(
    path.join(dir, "d.md"),
    memory("deploys moved to mondays", "Since 2026-02-01.", "project"),
  );
}

for (const backend of ["git", "journal"] as HistoryBackendName[]) {
  describe(`history (${backend})`, () => {
    it("lists a consolidation with the files it added, modified and deleted", async () => {
      const dir = seed();
      const pending = await beginChange(dir, { kind: "dream", backend });
      consolidate(dir);
      const entry = await pending.finish("merged the database rules");
      assert.ok(entry);
      assert.equal(entry.kind, "dream");
      const byFile = Object.fromEntries(entry.changes.map((c) => [c.file, c.change]));
      assert.deepEqual(byFile, {
        "MEMORY.md": "modified",
        "a.md": "modified",
        "b.md": "deleted",
        "c.md": "deleted",
        "d.md": "added",
      });
      const history = await listHistory(dir);
      assert.equal(history[0].id, entry.id);
      assert.equal(history[0].message, "merged the database rules");
      if (backend === "git") assert.ok(fs.existsSync(path.join(dir, ".git")));
      else assert.ok(fs.existsSync(path.join(dir, ".history")));
    });

    it("undo restores what a consolidation removed or rewrote, as a new entry", async () => {
      const dir = seed();
      const before = Object.fromEntries(["MEMORY.md", "a.md", "b.md", "c.md"].map((f) => [f, read(dir, f)]));
      await recordChange(dir, { kind: "dream", message: "consolidated", backend }, async () =>
        consolidate(dir),
      );
      const { undone, entry } = await undoChange(dir);
      assert.equal(undone.kind, "dream");
      assert.ok(entry);
      assert.equal(entry.kind, "undo");
      for (const [file, text] of Object.entries(before)) assert.equal(read(dir, file), text, file);
      assert.equal(fs.existsSync(path.join(dir, "d.md")), false, "what the run added is gone");
      const history = await listHistory(dir);
      assert.equal(history.find((e) => e.id === undone.id)?.undoneBy, entry.id);
      await assert.rejects(undoChange(dir), /nothing to undo/);
    });

    it("records a change even when the run fails part-way", async () => {
      const dir = seed();
      await assert.rejects(
        recordChange(dir, { kind: "dream", message: "consolidated", backend }, async () => {
          fs.rmSync(path.join(dir, "c.md"));
          throw new Error("model went away");
        }),
        /model went away/,
      );
      const [entry] = await listHistory(dir);
      assert.match(entry.message, /failed part-way/);
      await undoChange(dir, entry.id);
      assert.match(read(dir, "c.md"), /Fridays/);
    });

    it("finishing with no change records nothing", async () => {
      const dir = seed();
      const pending = await beginChange(dir, { kind: "dream", backend });
      assert.equal(await pending.finish("nothing to do"), null);
      assert.equal((await listHistory(dir)).filter((e) => e.kind === "dream").length, 0);
    });

    it("rejects an unknown id", async () => {
      const dir = seed();
      await recordChange(dir, { kind: "dream", message: "x", backend }, async () => consolidate(dir));
      await assert.rejects(undoChange(dir, "ffffffff"), /no history entry/);
    });
  });
}

describe("history (git)", () => {
  it("records saves made since the last entry as a snapshot, and undoing a dream leaves them alone", async () => {
    const dir = seed();
    await recordChange(dir, { kind: "dream", message: "first", backend: "git" }, async () => {
      fs.rmSync(path.join(dir, "c.md"));
    });
    writeTree(dir, { "e.md": memory("new rule", "Saved between runs.") });
    fs.appendFileSync(path.join(dir, "MEMORY.md"), "- [E](e.md) — e\n");
    await recordChange(dir, { kind: "dream", message: "second", backend: "git" }, async () => {
      fs.rmSync(path.join(dir, "b.md"));
      fs.writeFileSync(path.join(dir, "MEMORY.md"), read(dir, "MEMORY.md").replace("- [B](b.md) — b\n", ""));
    });
    const kinds = (await listHistory(dir)).map((e) => `${e.kind}:${e.message}`);
    assert.deepEqual(kinds.slice(0, 3), ["dream:second", "snapshot:state before dream", "dream:first"]);
    await undoChange(dir);
    assert.ok(fs.existsSync(path.join(dir, "b.md")));
    assert.ok(fs.existsSync(path.join(dir, "e.md")), "the save recorded in between survives");
    assert.match(read(dir, "MEMORY.md"), /\(b\.md\)/);
    assert.match(read(dir, "MEMORY.md"), /\(e\.md\)/);
  });

  it("starts the history whole when writers start it at once, and finishes a .git cut short", async () => {
    // Writers of one process starting the history at once (an agent session's "remember …"
    // beside its model's save): none may find the other's repository half-made.
    const dir = seed();
    await Promise.all([1, 2, 3, 4].map(() => initGitHistory(dir)));
    const first = await recordChange(dir, { kind: "save", message: "first", backend: "git" }, async () => {
      fs.writeFileSync(path.join(dir, "x.md"), memory("x", "x"));
    });
    assert.ok(first.entry);
    // Writers that record without the writer lock (a consolidation, an extraction) beside each
    // other: none fails on git's own index lock, and every file they wrote is in the history
    // (unlocked, one may land in another's entry: docs/design.md#undo).
    await Promise.all(
      ["x", "y", "z", "w"].map((name) =>
        recordChange(dir, { kind: "dream", message: name, backend: "git" }, async () => {
          fs.writeFileSync(path.join(dir, `${name}-more.md`), memory(name, name));
        }),
      ),
    );
    const recorded = (await listHistory(dir)).flatMap((entry) => entry.changes.map((change) => change.file));
    for (const name of ["x", "y", "z", "w"])
      assert.ok(recorded.includes(`${name}-more.md`), `${name}-more.md in ${recorded}`);
    assert.deepEqual(
      fs.readdirSync(dir).filter((file) => file.startsWith(".history-init-")),
      [],
      "no folder left from a repository made aside",
    );
    // A `.git` folder without HEAD, as a killed `git init` leaves it.
    const cut = seed();
    fs.mkdirSync(path.join(cut, ".git"));
    const entry = await recordChange(
      cut,
      { kind: "save", message: "after a cut init", backend: "git" },
      async () => {
        fs.writeFileSync(path.join(cut, "v.md"), memory("v", "v"));
      },
    );
    assert.ok(entry.entry);
    assert.equal((await listHistory(cut))[0]?.message, "after a cut init");
  });

  it("never touches an enclosing repository and keeps its own state out of history", async () => {
    const outer = makeTempDir();
    const dir = path.join(outer, "memory");
    writeTree(dir, { "a.md": memory("a", "a"), ".consolidate-lock": "" });
    const entry = await recordChange(dir, { kind: "dream", message: "x", backend: "git" }, async () => {
      fs.writeFileSync(path.join(dir, "b.md"), memory("b", "b"));
    });
    assert.ok(entry.entry);
    assert.equal(fs.existsSync(path.join(outer, ".git")), false);
    const all = (await listHistory(dir)).flatMap((e) => e.changes.map((c) => c.file));
    assert.equal(all.includes(".consolidate-lock"), false);
  });
});

describe("history (journal)", () => {
  it("tracks memory files and the index, not memdir's own dot-folders", async () => {
    const dir = seed();
    writeTree(dir, { ".proposals/x/plan.json": "{}", "team/f.md": memory("f", "f") });
    assert.deepEqual(await listTrackedFiles(dir), ["MEMORY.md", "a.md", "b.md", "c.md", "team/f.md"]);
  });
});

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { listHistory, recordChange, undoChange } from "../../src/dream/history.ts";
import type { HistoryBackendName } from "../../src/dream/history-types.ts";
import { removeMemory, saveMemory } from "../../src/memdir/write/write.ts";
import { makeTempDir } from "../helpers/temp.ts";

const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), "utf8");

/** A memory dir with `count` memories saved through the writer (each stamped `modified:`). */
async function seeded(backend: HistoryBackendName, count: number): Promise<string> {
  const dir = makeTempDir();
  if (backend === "journal") fs.mkdirSync(path.join(dir, ".history"));
  for (let i = 1; i <= count; i++)
    await saveMemory(dir, {
      file: `m${i}.md`,
      type: "project",
      description: `fact number ${i}`,
      body: `Fact ${i}.`,
    });
  return dir;
}

for (const backend of ["git", "journal"] as HistoryBackendName[]) {
  describe(`undo is exact (${backend})`, () => {
    it("brings back a removed memory byte for byte and its index line, keeping 7 lines saved after it", async () => {
      const dir = await seeded(backend, 3);
      const memoryBefore = read(dir, "m3.md");
      const indexBefore = read(dir, "MEMORY.md");
      // m3's line is the last one: every later save's line lands right where it was.
      const { entry } = await recordChange(dir, { kind: "forget", message: "forgot m3.md", lock: true }, () =>
        removeMemory(dir, "m3.md"),
      );
      assert.ok(entry);
      for (let i = 4; i <= 10; i++)
        await recordChange(dir, { kind: "add", message: `added m${i}.md`, lock: true }, () =>
          saveMemory(dir, {
            file: `m${i}.md`,
            type: "project",
            description: `fact number ${i}`,
            body: `Fact ${i}.`,
          }),
        );
      const later = read(dir, "MEMORY.md")
        .split("\n")
        .filter((line) => line !== "" && !indexBefore.includes(line));
      assert.equal(later.length, 7);

      const { undone } = await undoChange(dir, entry.id);
      assert.equal(undone.id, entry.id);
      assert.equal(read(dir, "m3.md"), memoryBefore, "the memory, modified: stamp included");
      assert.equal(read(dir, "MEMORY.md"), `${indexBefore}${later.map((line) => `${line}\n`).join("")}`);
    });

    it("refuses to undo a change whose file a later change rewrote, naming that change, and writes nothing", async () => {
      const dir = await seeded(backend, 2);
      const first = await recordChange(dir, { kind: "add", message: "replaced m1.md", lock: true }, () =>
        saveMemory(dir, {
          file: "m1.md",
          type: "project",
          description: "fact one, revised",
          body: "Revised.",
        }),
      );
      const second = await recordChange(
        dir,
        { kind: "add", message: "replaced m1.md again", lock: true },
        () =>
          saveMemory(dir, {
            file: "m1.md",
            type: "project",
            description: "fact one, revised twice",
            body: "Twice.",
          }),
      );
      assert.ok(first.entry && second.entry);
      const files = { memory: read(dir, "m1.md"), index: read(dir, "MEMORY.md") };
      await assert.rejects(
        undoChange(dir, first.entry.id),
        (error: Error) =>
          error.message.includes(`m1.md was changed since by ${second.entry?.id}`) &&
          error.message.includes(`memdir undo ${second.entry?.id}`),
      );
      assert.deepEqual({ memory: read(dir, "m1.md"), index: read(dir, "MEMORY.md") }, files);
      // In order it works: the newest first, then the one before it.
      assert.equal((await undoChange(dir)).undone.id, second.entry.id);
      assert.equal((await undoChange(dir)).undone.id, first.entry.id);
      assert.match(read(dir, "m1.md"), /^description: fact number 1$/m);
      assert.match(read(dir, "MEMORY.md"), /— fact number 1$/m);
      const undos = (await listHistory(dir)).filter((e) => e.kind === "undo");
      assert.equal(undos.length, 2);
    });
  });
}

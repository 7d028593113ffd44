// Many saves under one hold of the lock with one index write (an import's path): the same files
// and lines as one save at a time, and still all-or-nothing between files and index.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { isMemdirError } from "../../../src/errors.ts";
import { parseIndex } from "../../../src/memdir/format/index-file.ts";
import { saveMemoriesTogether, saveMemory } from "../../../src/memdir/write/write.ts";
import { makeTempDir } from "../../helpers/temp.ts";

describe("saveMemoriesTogether", () => {
  it("writes the same files and index lines as saving one at a time, with a refusal thrown per call", async () => {
    const together = path.join(makeTempDir(), "memory");
    const oneByOne = path.join(makeTempDir(), "memory");
    const inputs = Array.from({ length: 20 }, (_, i) => ({
      type: "project" as const,
      description: `deploy step ${i} runs on the staging cluster`,
      body: `step ${i}`,
    }));
    const now = () => Date.parse("2026-12-01T10:00:00Z");
    const refusals: string[] = [];
    await saveMemoriesTogether(together, async (save) => {
      for (const input of inputs) await save(input, { now });
      await save({
        type: "project",
        description: "the token",
        body: "token ghp_x7Qk2mN9pL4rT8vW1yZ3bC6dF0gH5jK8nM2q",
      }).catch((error) => {
        assert.ok(isMemdirError(error));
        refusals.push(error.code);
      });
      // A later save replaces a file saved earlier in the same batch: one line, the new text.
      await save(
        {
          ...inputs[0],
          file: "project-deploy-step-0-runs-staging-cluster.md",
          replace: true,
          body: "changed",
        },
        { now },
      );
    });
    for (const input of inputs) await saveMemory(oneByOne, input, { now });
    await saveMemory(
      oneByOne,
      { ...inputs[0], file: "project-deploy-step-0-runs-staging-cluster.md", replace: true, body: "changed" },
      { now },
    );
    assert.deepEqual(refusals, ["secret"]);
    assert.equal(
      fs.readFileSync(path.join(together, "MEMORY.md"), "utf8"),
      fs.readFileSync(path.join(oneByOne, "MEMORY.md"), "utf8"),
    );
    const files = fs
      .readdirSync(oneByOne)
      .filter((name) => name.endsWith(".md"))
      .sort();
    assert.deepEqual(
      fs
        .readdirSync(together)
        .filter((name) => name.endsWith(".md"))
        .sort(),
      files,
    );
    for (const file of files)
      assert.equal(
        fs.readFileSync(path.join(together, file), "utf8"),
        fs.readFileSync(path.join(oneByOne, file), "utf8"),
      );
    assert.equal(parseIndex(fs.readFileSync(path.join(together, "MEMORY.md"), "utf8")).length, 20);
  });

  it("puts every file back when the index cannot be written at the end", async () => {
    const dir = path.join(makeTempDir(), "memory");
    await saveMemory(dir, { type: "user", description: "prefers tabs", body: "before" });
    const before = fs.readFileSync(path.join(dir, "user-prefers-tabs.md"), "utf8");
    const indexBefore = fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8");
    await assert.rejects(
      saveMemoriesTogether(dir, async (save) => {
        await save({
          type: "user",
          description: "prefers tabs",
          body: "after",
          file: "user-prefers-tabs.md",
          replace: true,
        });
        await save({ type: "project", description: "CI runs on Fridays", body: "" });
        // The index is taken away under the batch: its one write at the end fails.
        fs.rmSync(path.join(dir, "MEMORY.md"));
        fs.mkdirSync(path.join(dir, "MEMORY.md"));
      }),
    );
    fs.rmdirSync(path.join(dir, "MEMORY.md"));
    assert.equal(
      fs.readFileSync(path.join(dir, "user-prefers-tabs.md"), "utf8"),
      before,
      "the replaced file is back",
    );
    assert.equal(fs.existsSync(path.join(dir, "project-ci-runs-fridays.md")), false, "the new file is gone");
    assert.ok(indexBefore.includes("user-prefers-tabs.md"));
  });
});

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { parseFrontmatter } from "../../src/memdir/format/frontmatter.ts";
import { memoryToolHandlers } from "../../src/memory-tool/handlers.ts";
import { inferMemory } from "../../src/memory-tool/infer.ts";
import { makeTempDir } from "../helpers/temp.ts";

describe("inferMemory", () => {
  it("keeps a complete frontmatter as it is and infers nothing", () => {
    const memory = inferMemory("x.md", "---\ndescription: d\ntype: user\nname: x\n---\nbody\n");
    assert.deepEqual(memory.inferred, []);
    assert.deepEqual([memory.type, memory.description, memory.extra], ["user", "d", { name: "x" }]);
  });

  it("guesses the type from the words when the file name has no type prefix", () => {
    assert.equal(inferMemory("a.md", "See https://grafana.example/d/api for latency.").type, "reference");
    assert.equal(inferMemory("a.md", "Never force-push to main.").type, "feedback");
    assert.equal(inferMemory("a.md", "The user is a data engineer.").type, "user");
    assert.equal(inferMemory("a.md", "The billing service moves to Postgres in Q3.").type, "project");
  });

  it("takes the description from the first line with words, without heading marks", () => {
    const memory = inferMemory("project-x.md", "\n# Release freeze\n\nNo merges after Thursday.");
    assert.equal(memory.description, "Release freeze");
    assert.match(memory.inferred.join("\n"), /its first line/);
  });

  it("fills in only the field that is missing", () => {
    const memory = inferMemory("notes.md", "---\ntype: project\n---\nThe API is frozen until May.\n");
    assert.equal(memory.type, "project");
    assert.deepEqual(memory.inferred, ['description: "The API is frozen until May." (its first line)']);
  });
});

describe("the memory tool keeps frontmatter keys the model wrote", () => {
  it("writes unknown keys back after an edit", async () => {
    const memoryDir = makeTempDir();
    const handlers = memoryToolHandlers(memoryDir);
    await handlers.create({
      command: "create",
      path: "/memories/user-tabs.md",
      file_text: "---\nname: user-tabs\ndescription: the user prefers tabs\ntype: user\n---\nTabs.\n",
    });
    await handlers.str_replace({
      command: "str_replace",
      path: "/memories/user-tabs.md",
      old_str: "Tabs.",
      new_str: "Tabs, width 4.",
    });
    const parsed = parseFrontmatter(fs.readFileSync(path.join(memoryDir, "user-tabs.md"), "utf8"));
    assert.equal(parsed.data.name, "user-tabs");
    assert.match(parsed.body, /width 4/);
  });
});

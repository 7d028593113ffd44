import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { memorySystemPrompt } from "../../src/prompts/memory-rules.ts";

const memoryDir = "/home/me/.claude/projects/-Users-me-shop/memory";

describe("memorySystemPrompt", () => {
  const prompt = memorySystemPrompt({ memoryDir });

  it("says where memory lives and names the index", () => {
    assert.ok(prompt.includes(`\`${memoryDir}\``));
    assert.ok(prompt.includes(`${memoryDir}/MEMORY.md`));
  });

  it("describes the four types and when to save each", () => {
    for (const type of ["user", "feedback", "project", "reference"]) {
      assert.match(prompt, new RegExp(`\\*\\*${type}\\*\\*: .+Save it when`, "s"), type);
    }
  });

  it("lists what not to save: derivable facts, task state, instruction-file content, secrets", () => {
    const section = prompt.slice(prompt.indexOf("## What not to save"), prompt.indexOf("## When to save"));
    assert.match(section, /code, the git history or the directory tree/);
    assert.match(section, /Ephemeral state of the current task/);
    assert.match(section, /already written in CLAUDE\.md/);
    assert.match(section, /Secrets/);
  });

  it("asks to save immediately when told to remember, and to remove when told to forget", () => {
    assert.match(prompt, /explicitly asks you to remember something, save it immediately/);
    assert.match(prompt, /asks you to forget something, delete its memory file and its line in the index/);
  });

  it("gives the two steps: own file with frontmatter, then one pointer line in MEMORY.md", () => {
    assert.match(prompt, /1\. Write the memory to its own file/);
    assert.match(prompt, /description: .+\n\s+type: feedback/);
    assert.match(prompt, /2\. Add ONE pointer line/);
    assert.ok(prompt.includes("`- [Title](file.md) — one-line hook`"));
  });

  it("asks to update rather than duplicate, to verify old notes, and to honour 'ignore memory'", () => {
    assert.match(prompt, /update that file/);
    assert.match(prompt, /instead of adding a second one/);
    assert.match(prompt, /check that it still exists/);
    assert.match(prompt, /ignore memory.+act as if the memory folder were empty/s);
  });

  it("mentions the team folder only when team memory is on", () => {
    assert.ok(!prompt.includes("/team"));
    const team = memorySystemPrompt({ memoryDir, teamMemory: true });
    assert.ok(team.includes(`${memoryDir}/team/MEMORY.md`));
  });
});

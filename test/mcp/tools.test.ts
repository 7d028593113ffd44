import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { createMemoryTools, isMemoryTool } from "../../src/agent/memory-tools/index.ts";
import { createToolContext, toolDefinition } from "../../src/agent/tools/spec.ts";
import { resolveConfig } from "../../src/config.ts";
import { changeRecorder } from "../../src/dream/history.ts";
import { parseFrontmatter } from "../../src/memdir/format/frontmatter.ts";
import { createLexicalSelector } from "../../src/recall/select-lexical.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { makeTempDir } from "../helpers/temp.ts";
import { WORKED_EXAMPLE_PROMPT, writeWorkedExample } from "./worked-example.ts";

function setup() {
  const home = makeTempDir("memdir-tools-");
  const memoryDir = writeWorkedExample(path.join(home, "memory"));
  const config = resolveConfig({ cwd: home, home, env: { HOME: home } });
  const tools = createMemoryTools({ config, selector: createLexicalSelector() });
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return { home, memoryDir, tools, byName, context: createToolContext({ cwd: home, memoryDir }) };
}

describe("memory tools, defined once for the agent loop and MCP", () => {
  it("are ordinary agent tools with JSON schemas a model request can carry", () => {
    const { tools } = setup();
    for (const tool of tools) {
      assert.ok(isMemoryTool(tool));
      const definition = toolDefinition(tool);
      assert.equal(definition.name, tool.name);
      assert.equal((definition.inputSchema as { type: string }).type, "object");
    }
    assert.deepEqual(
      tools.filter((tool) => tool.readOnly).map((tool) => tool.name),
      ["memory_recall", "memory_list", "memory_read", "memory_context"],
    );
  });

  it("give the agent the same answer as text, and refusals as errors", async () => {
    const { byName, context, home } = setup();
    const recalled = await byName.get("memory_recall")!.handler({ query: WORKED_EXAMPLE_PROMPT }, context);
    assert.equal(recalled.isError, undefined);
    assert.match(
      recalled.content,
      /^Memory: .*\nfile: feedback-real-database\.md \(feedback, saved 2 days ago\)\n/,
    );
    fs.writeFileSync(path.join(home, "outside.md"), "outside\n");
    const refused = await byName.get("memory_read")!.handler({ file: "../outside.md" }, context);
    assert.equal(refused.isError, true);
    assert.match(
      refused.content,
      /^memdir: read: the path "\.\.\/outside\.md" contains "\.\.", which could leave the memory directory; use a path relative to the memory directory \/.*\/memory, such as "feedback-testing\.md"$/,
    );
    assert.ok(!refused.content.includes("outside\n"), "the file's text is not read out");
  });

  it("do not surface again in a session what recall or a read already gave the model", async () => {
    const { byName, context } = setup();
    await byName.get("memory_read")!.handler({ file: "feedback-real-database.md" }, context);
    const recalled = await byName.get("memory_recall")!.run({ query: WORKED_EXAMPLE_PROMPT }, context);
    assert.ok(recalled.ok);
    assert.ok(
      !(recalled.output as { memories: { file: string }[] }).memories.some(
        (memory) => memory.file === "feedback-real-database.md",
      ),
    );
  });

  it("say so when memory is off (no memory dir in the context)", async () => {
    const { byName, home } = setup();
    const result = await byName
      .get("memory_list")!
      .handler({}, createToolContext({ cwd: home, memoryDir: null }));
    assert.equal(result.isError, true);
    assert.match(result.content, /auto memory is off/);
  });

  it("act on one file whichever Unicode spelling names it, and say when none does", async () => {
    const { byName, context, memoryDir } = setup();
    const run = (name: string, input: Record<string, unknown>) => byName.get(name)!.handler(input, context);
    const saved = await run("memory_save", {
      type: "user",
      description: "cafe order",
      content: "Orders a flat white.",
      file: "café.md",
    });
    assert.equal(saved.isError, undefined, saved.content);

    const updated = await run("memory_update", { file: "cafe\u0301.md", content: "Orders a cortado." });
    assert.equal(updated.isError, undefined, updated.content);
    assert.match(updated.content, /^Updated café\.md/);
    assert.match(fs.readFileSync(path.join(memoryDir, "café.md"), "utf8"), /cortado/);
    assert.ok(!fs.existsSync(path.join(memoryDir, "cafe\u0301.md")));

    const deleted = await run("memory_delete", { file: "cafe\u0301.md" });
    assert.equal(deleted.isError, undefined, deleted.content);
    assert.ok(!fs.existsSync(path.join(memoryDir, "café.md")), "the file is gone, not only its index line");
    const recalled = await run("memory_recall", { query: "what coffee does the user order" });
    assert.ok(!recalled.content.includes("cortado"), recalled.content);

    for (const file of ["café.md", "nothing-here.md"]) {
      const missing = await run("memory_update", { file, content: "x", type: "user", description: "d" });
      assert.equal(missing.isError, true);
      assert.match(
        missing.content,
        new RegExp(`^memdir: memory_update: no memory ${file.replace(".", "\\.")} in `),
      );
      assert.ok(!fs.existsSync(path.join(memoryDir, file)));
    }
  });

  it("memory_update is refused only for a control character it adds, not one the memory already held", async () => {
    const { byName, context, memoryDir } = setup();
    const run = (name: string, input: Record<string, unknown>) => byName.get(name)!.handler(input, context);
    const file = path.join(memoryDir, "project-build-notes.md");
    // As sync pulls a teammate's memory: byte for byte, a backspace in the description and a form
    // feed on a body line.
    fs.writeFileSync(
      file,
      "---\ndescription: build notes\u0008 for CI\ntype: project\n---\nSection\u000c one: CI uses Node 20.\n",
    );
    const read = await run("memory_read", { file: "project-build-notes.md" });
    assert.match(read.content, /Section\u000c one/);

    // A: the description is the stored one, carried over; the agent never passed it.
    const edited = await run("memory_update", {
      file: "project-build-notes.md",
      content: "The CI build uses Node 22 now.",
    });
    assert.equal(edited.isError, undefined, edited.content);
    const saved = parseFrontmatter(fs.readFileSync(file, "utf8"));
    assert.equal(saved.description, "build notes\u0008 for CI");
    assert.equal(saved.body.trim(), "The CI build uses Node 22 now.");

    // B: the body line that already held a form feed, sent back as memory_read gave it.
    fs.writeFileSync(
      file,
      "---\ndescription: build notes\ntype: project\n---\nSection\u000c one: CI uses Node 20.\n",
    );
    const kept = await run("memory_update", {
      file: "project-build-notes.md",
      content: "Section\u000c one: CI uses Node 20.\nSection two: and Node 22 on main.",
    });
    assert.equal(kept.isError, undefined, kept.content);
    assert.match(fs.readFileSync(file, "utf8"), /Section two/);

    // What an update adds is still refused, and nothing is written.
    const before = fs.readFileSync(file, "utf8");
    for (const [input, refused] of [
      [
        { content: "Section\u000c one: CI uses Node 20.\nRed \u001b[31m." },
        /body: holds the control character U\+001B \(ESC\) on line 2/,
      ],
      [
        { content: "Node 22.", description: "build \u0007notes" },
        /description: holds the control character U\+0007 \(BEL\)/,
      ],
    ] as const) {
      const result = await run("memory_update", { file: "project-build-notes.md", ...input });
      assert.equal(result.isError, true);
      assert.match(result.content, refused);
    }
    assert.equal(fs.readFileSync(file, "utf8"), before);
  });

  it("record the file the writer changed, also when named by its absolute path, so undo restores it", async () => {
    const home = makeTempDir("memdir-tools-journal-");
    const memoryDir = path.join(home, "memory");
    // A `.history/` folder and no `.git`: the memory dir keeps the journal.
    fs.mkdirSync(path.join(memoryDir, ".history"), { recursive: true });
    const config = resolveConfig({ cwd: home, home, env: { HOME: home } });
    const tools = new Map(
      createMemoryTools({ config, selector: createLexicalSelector() }).map((tool) => [tool.name, tool]),
    );
    const context = createToolContext({
      cwd: home,
      memoryDir,
      record: changeRecorder({ command: "memdir mcp" }),
    });
    const run = async (name: string, input: Record<string, unknown>) => {
      const result = await tools.get(name)!.handler(input, context);
      assert.equal(result.isError, undefined, result.content);
    };
    const undo = async () => {
      const result = await runCliInProcess(["undo", "--dir", memoryDir], { home });
      assert.equal(result.code, 0, result.stderr);
    };
    const absolute = path.join(memoryDir, "freeze.md");
    await run("memory_save", {
      type: "project",
      description: "release freeze",
      content: "Friday.",
      file: absolute,
    });
    const original = fs.readFileSync(absolute, "utf8");

    await run("memory_update", { file: absolute, content: "Thursday." });
    assert.match(fs.readFileSync(absolute, "utf8"), /Thursday/);
    await undo();
    assert.equal(fs.readFileSync(absolute, "utf8"), original, "the replaced text is back");

    await run("memory_delete", { file: absolute });
    assert.ok(!fs.existsSync(absolute));
    await undo();
    assert.equal(fs.readFileSync(absolute, "utf8"), original, "the deleted memory is back");

    await undo();
    assert.ok(!fs.existsSync(absolute), "undoing the save removes it");
  });
});

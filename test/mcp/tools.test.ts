import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { createMemoryTools, isMemoryTool } from "../../src/agent/memory-tools/index.ts";
import { createToolContext, toolDefinition } from "../../src/agent/tools/spec.ts";
import { resolveConfig } from "../../src/config.ts";
import { createLexicalSelector } from "../../src/recall/select-lexical.ts";
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
});

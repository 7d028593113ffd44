// The framework-neutral memory tool in another agent loop: the Vercel AI SDK's generateText with
// its Anthropic provider, over real HTTP to the fake model server. The snippet in
// docs/integrations.md ("Vercel AI SDK") is this code.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { createAnthropic } from "@ai-sdk/anthropic";
import { generateText, jsonSchema, stepCountIs, tool } from "ai";
import { parseFrontmatter } from "../../src/memdir/format/frontmatter.ts";
import { memoryToolSet } from "../../src/memory-tool/tool-set.ts";
import { startFakeModelServer } from "../../src/testing/index.ts";
import { makeTempDir } from "../helpers/temp.ts";

describe("memoryToolSet in the Vercel AI SDK", () => {
  it("saves a memory through generateText's tool loop, and returns refusals as readable results", async () => {
    const memoryDir = makeTempDir();
    await using server = await startFakeModelServer([
      { toolCall: { name: "memory", input: { command: "view", path: "/memories" } } },
      {
        toolCall: {
          name: "memory",
          input: {
            command: "create",
            path: "/memories/user-prefers-tabs.md",
            file_text: "The user prefers tabs.",
          },
        },
      },
      { toolCall: { name: "memory", input: { command: "delete", path: "/memories/../elsewhere.md" } } },
      "Noted: you prefer tabs.",
    ]);
    const anthropic = createAnthropic({ apiKey: "test-key", baseURL: `${server.url}/v1` });

    // --- the example ---
    const { memory } = memoryToolSet(memoryDir);
    const result = await generateText({
      model: anthropic("claude-test"),
      tools: {
        memory: tool({
          description: memory.description,
          inputSchema: jsonSchema(memory.inputSchema),
          execute: (input) => memory.execute(input),
        }),
      },
      stopWhen: stepCountIs(5),
      prompt: "I prefer tabs over spaces; remember that.",
    });
    // --- end of the example ---

    assert.equal(result.text, "Noted: you prefer tabs.");
    const outputs = result.steps.flatMap((step) => step.toolResults.map((call) => String(call.output)));
    assert.equal(outputs.length, 3);
    assert.match(outputs[0], /holds no memories yet/);
    assert.match(outputs[1], /File created successfully/);
    assert.match(outputs[1], /type: user \(from the file name\)/);
    assert.match(outputs[2], /^Error: memdir: memory tool: the path "\.\.\/elsewhere\.md" contains "\.\."/);
    const parsed = parseFrontmatter(fs.readFileSync(path.join(memoryDir, "user-prefers-tabs.md"), "utf8"));
    assert.deepEqual([parsed.type, parsed.description], ["user", "The user prefers tabs."]);
    assert.match(fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8"), /user-prefers-tabs\.md/);
    // The tool went to the model with its JSON Schema.
    const tools = server.requests[0].body?.tools as { name: string; input_schema: { properties: object } }[];
    assert.equal(tools[0].name, "memory");
    assert.ok("command" in tools[0].input_schema.properties);
  });

  it("answers an unknown command with an error text instead of throwing", async () => {
    const { memory } = memoryToolSet(makeTempDir());
    assert.match(
      await memory.execute({ command: "format" }),
      /^Error: memdir: memory tool: unknown command "format"/,
    );
    assert.match(await memory.execute(null), /^Error: /);
  });
});

// What a recalled memory looks like to hosts that read the MCP result differently
// (docs/design.md#mcp-server): Cline hands the model the text block and structuredContent together,
// so its text only points at the structured result; other clients keep the full text.
import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { resolveConfig } from "../../src/config.ts";
import { createMemdirServer } from "../../src/mcp/server.ts";
import { resolveMemoryLocation } from "../../src/memdir/location/paths.ts";
import { makeTempDir } from "../helpers/temp.ts";
import { WORKED_EXAMPLE_PROMPT, writeWorkedExample } from "./worked-example.ts";

async function recallAs(clientName: string) {
  const home = makeTempDir("memdir-mcp-clients-");
  const memoryDir = writeWorkedExample(path.join(home, "memory"));
  const env = { HOME: home };
  const location = await resolveMemoryLocation({ dir: memoryDir, cwd: home, home, env });
  const server = createMemdirServer({ location, config: resolveConfig({ cwd: home, home, env }) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: clientName, version: "3.0.65" });
  await client.connect(clientSide);
  try {
    const recall = (await client.callTool({
      name: "memory_recall",
      arguments: { query: WORKED_EXAMPLE_PROMPT },
    })) as CallToolResult;
    const save = (await client.callTool({
      name: "memory_save",
      arguments: { type: "user", description: "prefers tabs over spaces", content: "in every language" },
    })) as CallToolResult;
    return { recall, save };
  } finally {
    await client.close();
    await server.close();
  }
}

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe("MCP results per client", () => {
  it("gives Cline each recalled memory once: the text points at the structured result", async () => {
    const { recall, save } = await recallAs("@cline/core");
    const memories = (recall.structuredContent as { memories: { file: string; content: string }[] }).memories;
    assert.equal(memories[0]?.file, "feedback-real-database.md");
    assert.match(memories[0]?.content ?? "", /\S/);
    assert.equal(textOf(recall), "memory_recall: the result is the structured content of this message.");
    assert.match(textOf(save), /^Saved user-prefers-tabs/, "a write's confirmation is kept");
  });

  it("keeps the whole text for clients that read the text block", async () => {
    const { recall } = await recallAs("claude-code");
    const memories = (recall.structuredContent as { memories: { content: string }[] }).memories;
    assert.match(textOf(recall), /^Memory: .*\nfile: feedback-real-database\.md/);
    assert.ok(textOf(recall).includes((memories[0]?.content ?? "").split("\n")[0] as string));
  });
});

import assert from "node:assert/strict";
import path from "node:path";
import { after, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type FakeModelServer, type FakeStep, startFakeModelServer } from "../../src/testing/index.ts";
import { cliNodeArgs } from "../helpers/node-entry.ts";
import { makeTempDir } from "../helpers/temp.ts";
import { WORKED_EXAMPLE_PROMPT, writeWorkedExample } from "./worked-example.ts";

// Every agent starts its MCP servers with its own environment, which often holds its own
// ANTHROPIC_API_KEY: `memdir mcp` calls a model only when memdir itself is configured for one,
// the rule the hooks follow (docs/design.md#model-use-in-hooks).

/** Picks every memory in the manifest, as a model would when all apply. */
const pickAll: FakeStep = (request) => ({
  json: {
    selected_memories: request.userText
      .split("\n")
      .map((line) => /\] (\S+\.md) \(/.exec(line)?.[1])
      .filter((file): file is string => file !== undefined),
  },
});

async function recallThroughMcp(env: Record<string, string>): Promise<CallToolResult> {
  const home = makeTempDir("memdir-mcp-model-");
  const memoryDir = writeWorkedExample(path.join(home, "memory"));
  const client = new Client({ name: "memdir-test", version: "0.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [...cliNodeArgs(), "mcp", "--dir", memoryDir],
      cwd: home,
      env: { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1", ...env },
      stderr: "ignore",
    }),
  );
  try {
    return (await client.callTool({
      name: "memory_recall",
      arguments: { query: WORKED_EXAMPLE_PROMPT },
    })) as CallToolResult;
  } finally {
    await client.close();
  }
}

describe("memdir mcp and a model", () => {
  const servers: FakeModelServer[] = [];
  after(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });
  async function serve(): Promise<FakeModelServer> {
    const server = await startFakeModelServer([pickAll, pickAll]);
    servers.push(server);
    return server;
  }

  it("recalls lexically, with no model request, when only the host's ANTHROPIC_API_KEY is in its environment", async () => {
    const server = await serve();
    const result = await recallThroughMcp({
      ANTHROPIC_API_KEY: "sk-host-key",
      ANTHROPIC_BASE_URL: server.anthropicBaseURL,
    });
    assert.notEqual(result.isError, true);
    assert.equal((result.structuredContent as { selector: string }).selector, "lexical");
    assert.equal(server.requests.length, 0, "memdir mcp called the host's model unasked");
  });

  it("asks the model when memdir is configured for one (MEMDIR_PROVIDER)", async () => {
    const server = await serve();
    const result = await recallThroughMcp({
      MEMDIR_PROVIDER: "anthropic",
      ANTHROPIC_API_KEY: "sk-memdir-key",
      ANTHROPIC_BASE_URL: server.anthropicBaseURL,
    });
    assert.notEqual(result.isError, true);
    assert.equal((result.structuredContent as { selector: string }).selector, "hybrid");
    assert.ok(server.requests.length >= 1, "the configured model was not asked");
  });
});

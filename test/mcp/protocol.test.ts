// What a current MCP client sees of `memdir mcp` (docs/design.md#mcp-server), over stdio with the real
// client: list-changed notifications for the memory files, a replacing write that says it is
// destructive, completions for file arguments, text that mirrors structuredContent, and one set
// of rules in the server's instructions and the session-start context.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  type CallToolResult,
  LATEST_PROTOCOL_VERSION,
  ResourceListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { POINT_IN_TIME_RULE, REMEMBER_RULE } from "../../src/prompts/memory-rules.ts";
import { runCli } from "../helpers/cli.ts";
import { cliNodeArgs } from "../helpers/node-entry.ts";
import { makeTempDir } from "../helpers/temp.ts";
import { waitFor } from "../helpers/wait.ts";
import { writeWorkedExample } from "./worked-example.ts";

function text(result: CallToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

describe("memdir mcp for a current MCP client", () => {
  const home = makeTempDir("memdir-mcp-current-");
  const memoryDir = writeWorkedExample(path.join(home, "memory"));
  let client: Client;
  let listChanged = 0;

  before(async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...cliNodeArgs(), "mcp", "--dir", memoryDir],
      cwd: home,
      env: { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1" },
      stderr: "pipe",
    });
    client = new Client({ name: "memdir-test", version: "0.0.0" });
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      listChanged++;
    });
    await client.connect(transport);
  });

  after(async () => {
    await client?.close();
  });

  it("speaks the SDK's latest protocol revision and advertises only the list changes it sends", () => {
    assert.equal(client.getServerVersion()?.name, "memdir");
    const capabilities = client.getServerCapabilities();
    assert.equal(capabilities?.resources?.listChanged, true);
    assert.equal(capabilities?.tools?.listChanged, false, "the tools never change");
    assert.equal(capabilities?.prompts?.listChanged, false, "the prompts never change");
    assert.ok(capabilities?.completions, "completions are offered");
    assert.equal(LATEST_PROTOCOL_VERSION, "2025-11-25", "docs/integrations.md names this revision");
  });

  it("announces a changed resource list after each write, and not after a read", async () => {
    const before = listChanged;
    await client.callTool({ name: "memory_list", arguments: {} });
    const saved = (await client.callTool({
      name: "memory_save",
      arguments: {
        type: "project",
        description: "the release freeze starts Thursday",
        content: "No merges.",
      },
    })) as CallToolResult;
    assert.equal(saved.isError, undefined, text(saved));
    await waitFor(() => listChanged === before + 1);
    const { file } = saved.structuredContent as { file: string };
    const { resources } = await client.listResources();
    assert.ok(resources.some((resource) => resource.uri === `memory://file/${file}`));
    await client.callTool({ name: "memory_delete", arguments: { file } });
    await waitFor(() => listChanged === before + 2);
  });

  it("never replaces a memory with memory_save; memory_update does, and says so in its annotations", async () => {
    const original = fs.readFileSync(path.join(memoryDir, "feedback-real-database.md"), "utf8");
    const refused = (await client.callTool({
      name: "memory_save",
      arguments: {
        type: "feedback",
        description: "x",
        content: "overwritten",
        file: "feedback-real-database.md",
      },
    })) as CallToolResult;
    assert.equal(refused.isError, true);
    assert.match(text(refused), /exists/);
    assert.equal(fs.readFileSync(path.join(memoryDir, "feedback-real-database.md"), "utf8"), original);

    const updated = (await client.callTool({
      name: "memory_update",
      arguments: {
        file: "feedback-real-database.md",
        content: "Integration tests hit a real database.\nWhy: mocks hid a bug.",
      },
    })) as CallToolResult;
    assert.equal(updated.isError, undefined, text(updated));
    const now = fs.readFileSync(path.join(memoryDir, "feedback-real-database.md"), "utf8");
    assert.match(now, /^---\n(?:name: .*\n)?description: 登录模块/, "the description is kept");
    assert.match(now, /type: feedback/);
    assert.match(now, /Why: mocks hid a bug\./);
    assert.match(text(updated), /^Updated feedback-real-database\.md \(.*\) and its line in MEMORY\.md$/);

    const missing = (await client.callTool({
      name: "memory_update",
      arguments: { file: "feedback-no-such.md", content: "x", type: "feedback", description: "x" },
    })) as CallToolResult;
    assert.equal(missing.isError, true);
    assert.equal(fs.existsSync(path.join(memoryDir, "feedback-no-such.md")), false);
  });

  it("completes memory file names for the file resource's argument", async () => {
    const { completion } = await client.complete({
      ref: { type: "ref/resource", uri: "memory://file/{+file}" },
      argument: { name: "file", value: "feedback" },
    });
    assert.deepEqual(completion.values, ["feedback-real-database.md"]);
  });

  it("states the same rules in its instructions as the session-start context, and neither denies the tools", async () => {
    const instructions = client.getInstructions() ?? "";
    const hook = await runCli(["hook", "session-start", "--dir", memoryDir], { home, input: "{}" });
    const context = JSON.parse(hook.stdout).hookSpecificOutput?.additionalContext ?? "";
    for (const rule of [REMEMBER_RULE, POINT_IN_TIME_RULE]) {
      assert.ok(instructions.includes(rule), `instructions: ${rule}`);
      assert.ok(context.includes(rule), `session start: ${rule}`);
    }
    assert.match(context, /memory_save/);
    // Hosts show the tools prefixed (memdir_memory_recall, memdir__memory_recall): the server's
    // instructions name them by what they do, so no bare name points at a tool the model cannot see.
    assert.doesNotMatch(instructions, /\bmemory_(recall|save|update|delete|context)\b/);
    assert.match(instructions, /memory recall tool/);
    for (const textOf of [instructions, context]) assert.doesNotMatch(textOf, /no separate/i);
  });
});

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { cliNodeArgs } from "../helpers/node-entry.ts";
import { makeTempDir } from "../helpers/temp.ts";
import { waitFor } from "../helpers/wait.ts";
import { WORKED_EXAMPLE_PROMPT, writeWorkedExample } from "./worked-example.ts";

/** A memory dir holding the two memories of the worked example (docs/design.md#worked-example), saved two days ago. */
function workedExampleMemoryDir(base: string): string {
  return writeWorkedExample(path.join(base, "memory"));
}

function text(result: CallToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

describe("memdir mcp over stdio, with the real MCP client", () => {
  // Made in the suite body, not in before(): makeTempDir's cleanup then runs after the whole suite.
  const home = makeTempDir("memdir-mcp-");
  const memoryDir = workedExampleMemoryDir(home);
  let client: Client;
  let stderr = "";

  before(async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...cliNodeArgs(), "mcp", "--dir", memoryDir],
      cwd: home,
      env: { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1" },
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    client = new Client({ name: "memdir-test", version: "0.0.0" });
    await client.connect(transport);
  });

  after(async () => {
    await client?.close();
  });

  it("lists the seven memory tools and the three inbox tools with their input schemas and annotations", async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    assert.deepEqual([...byName.keys()].sort(), [
      "memory_context",
      "memory_delete",
      "memory_inbox_accept",
      "memory_inbox_list",
      "memory_inbox_reject",
      "memory_list",
      "memory_read",
      "memory_recall",
      "memory_save",
      "memory_update",
    ]);
    const recall = byName.get("memory_recall")!;
    assert.deepEqual(recall.inputSchema.required, ["query"]);
    assert.ok(recall.inputSchema.properties?.k, "k is an optional input");
    const save = byName.get("memory_save")!;
    assert.deepEqual([...(save.inputSchema.required ?? [])].sort(), ["content", "description", "type"]);
    assert.deepEqual((save.inputSchema.properties?.type as { enum?: string[] } | undefined)?.enum, [
      "user",
      "feedback",
      "project",
      "reference",
    ]);
    assert.deepEqual(byName.get("memory_read")!.inputSchema.required, ["file"]);
    for (const name of ["memory_recall", "memory_list", "memory_read", "memory_context"])
      assert.equal(byName.get(name)!.annotations?.readOnlyHint, true, `${name} is read-only`);
    assert.equal(byName.get("memory_delete")!.annotations?.destructiveHint, true);
    assert.equal(byName.get("memory_save")!.annotations?.readOnlyHint, false);
    assert.equal(byName.get("memory_save")!.annotations?.destructiveHint, false, "a save only adds");
    assert.equal(byName.get("memory_update")!.annotations?.destructiveHint, true, "an update replaces");
    assert.deepEqual([...(byName.get("memory_update")!.inputSchema.required ?? [])].sort(), [
      "content",
      "file",
    ]);
    for (const tool of tools) {
      assert.ok(tool.outputSchema, `${tool.name} declares its structured output`);
      assert.ok((tool.description ?? "").length > 60, `${tool.name} has a description a model can act on`);
    }
  });

  it("recalls the worked example's memory for the worked example's prompt", async () => {
    const result = (await client.callTool({
      name: "memory_recall",
      arguments: { query: WORKED_EXAMPLE_PROMPT },
    })) as CallToolResult;
    assert.equal(result.isError, undefined);
    const output = result.structuredContent as {
      selector: string;
      memories: {
        file: string;
        type: string;
        age: string;
        content: string;
        description: string;
        caveat: string | null;
      }[];
    };
    assert.equal(output.selector, "lexical", "offline recall is lexical");
    assert.equal(output.memories[0]?.file, "feedback-real-database.md");
    assert.equal(output.memories[0].type, "feedback");
    assert.equal(output.memories[0].age, "2 days ago");
    assert.match(output.memories[0].content, /真实数据库/);
    assert.match(output.memories[0].caveat ?? "", /point-in-time note/);
    // Cline sends the model both the text and structuredContent: the text is a compact rendering
    // (title, file, body), so the memory is not there twice as JSON.
    const shown = text(result);
    assert.throws(() => JSON.parse(shown), "the text is not structuredContent again as JSON");
    assert.match(
      shown,
      /^Memory: 登录模块的集成测试不得 mock 数据库\nfile: feedback-real-database\.md \(feedback, saved 2 days ago\)\n/,
    );
    assert.match(shown, /point-in-time note/);
    assert.equal(
      shown.split("真实数据库").length - 1,
      output.memories[0].content.split("真实数据库").length - 1,
      "the body once",
    );
    assert.doesNotMatch(shown, /^---$/m, "no frontmatter");
  });

  it("saves, lists, recalls, reads and deletes a memory", async () => {
    const saved = (await client.callTool({
      name: "memory_save",
      arguments: {
        type: "user",
        description: "the user prefers answers in German",
        content: "Answer in German unless asked otherwise.\nWhy: the team reads German.",
      },
    })) as CallToolResult;
    assert.equal(saved.isError, undefined, text(saved));
    const { file } = saved.structuredContent as { file: string };
    assert.match(file, /^user-.*\.md$/);
    assert.ok(fs.existsSync(path.join(memoryDir, file)), "the memory file is on disk");
    assert.match(fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8"), new RegExp(`\\(${file}\\)`));

    const listed = (await client.callTool({ name: "memory_list", arguments: {} })) as CallToolResult;
    const memories = (listed.structuredContent as { memories: { file: string; age: string }[] }).memories;
    assert.equal(memories[0].file, file, "newest first");
    assert.equal(memories[0].age, "today");
    assert.equal(memories.length, 3);
    const onlyUser = (await client.callTool({
      name: "memory_list",
      arguments: { type: "user" },
    })) as CallToolResult;
    assert.deepEqual(
      (onlyUser.structuredContent as { memories: { file: string }[] }).memories.map((memory) => memory.file),
      [file],
    );

    const recalled = (await client.callTool({
      name: "memory_recall",
      arguments: { query: "which language should answers be in? German?", k: 1 },
    })) as CallToolResult;
    const picked = (recalled.structuredContent as { memories: { file: string }[] }).memories;
    assert.deepEqual(
      picked.map((memory) => memory.file),
      [file],
    );

    const read = (await client.callTool({ name: "memory_read", arguments: { file } })) as CallToolResult;
    const whole = read.structuredContent as { description: string; content: string; type: string };
    assert.equal(whole.description, "the user prefers answers in German");
    assert.equal(whole.type, "user");
    assert.match(whole.content, /Why: the team reads German\./);

    const deleted = (await client.callTool({ name: "memory_delete", arguments: { file } })) as CallToolResult;
    assert.equal(deleted.isError, undefined, text(deleted));
    assert.equal(fs.existsSync(path.join(memoryDir, file)), false, "the file is gone");
    assert.doesNotMatch(fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8"), new RegExp(file));
  });

  it("returns invalid arguments as isError results the model can read", async () => {
    const badType = (await client.callTool({
      name: "memory_save",
      arguments: { type: "opinion", description: "x", content: "y" },
    })) as CallToolResult;
    assert.equal(badType.isError, true);
    assert.match(text(badType), /type/);
    const noQuery = (await client.callTool({ name: "memory_recall", arguments: {} })) as CallToolResult;
    assert.equal(noQuery.isError, true);
    assert.match(text(noQuery), /query/);
    const missing = (await client.callTool({
      name: "memory_read",
      arguments: { file: "no-such-memory.md" },
    })) as CallToolResult;
    assert.equal(missing.isError, true);
    assert.match(text(missing), /no memory no-such-memory\.md/);
  });

  it("refuses a file that escapes the memory dir, reading and writing nothing outside", async () => {
    fs.writeFileSync(
      path.join(home, "outside.md"),
      "---\ndescription: secret plans\ntype: user\n---\nnope\n",
    );
    const read = (await client.callTool({
      name: "memory_read",
      arguments: { file: "../outside.md" },
    })) as CallToolResult;
    assert.equal(read.isError, true);
    assert.match(text(read), /outside|\.\./);
    assert.doesNotMatch(text(read), /secret plans/);

    const save = (await client.callTool({
      name: "memory_save",
      arguments: { type: "user", description: "escape", content: "escape", file: "../escaped.md" },
    })) as CallToolResult;
    assert.equal(save.isError, true);
    assert.equal(fs.existsSync(path.join(home, "escaped.md")), false);

    const remove = (await client.callTool({
      name: "memory_delete",
      arguments: { file: path.join(home, "outside.md") },
    })) as CallToolResult;
    assert.equal(remove.isError, true);
    assert.ok(fs.existsSync(path.join(home, "outside.md")), "the file outside is still there");
  });

  it("refuses to save a secret and names its kind", async () => {
    const result = (await client.callTool({
      name: "memory_save",
      arguments: {
        type: "reference",
        description: "the deploy token",
        content: "token: ghp_4f8Zq2LmN7xR1vT9bK3cW6yH0jD5sA8eP2uQ",
      },
    })) as CallToolResult;
    assert.equal(result.isError, true);
    assert.match(text(result), /secret|token/i);
    assert.doesNotMatch(
      text(result),
      /ghp_4f8Zq2LmN7xR1vT9bK3cW6yH0jD5sA8eP2uQ/,
      "the value is never echoed",
    );
  });

  it("serves the index and each memory as resources", async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((resource) => resource.uri);
    assert.ok(uris.includes("memory://index"));
    assert.ok(uris.includes("memory://file/feedback-real-database.md"));
    const index = await client.readResource({ uri: "memory://index" });
    assert.match((index.contents[0] as { text: string }).text, /\(feedback-real-database\.md\)/);
    const memory = await client.readResource({ uri: "memory://file/feedback-real-database.md" });
    assert.match((memory.contents[0] as { text: string }).text, /^---\ndescription: 登录模块/);
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.ok(resourceTemplates.some((template) => template.uriTemplate.startsWith("memory://file/")));
    await assert.rejects(client.readResource({ uri: "memory://file/%2e%2e%2foutside.md" }), /outside|\.\./);
  });

  it("gives the session context with its load manifest", async () => {
    const result = (await client.callTool({ name: "memory_context", arguments: {} })) as CallToolResult;
    const output = result.structuredContent as {
      context: string;
      index: { loaded: boolean; truncated: false | string; path: string };
      files: { type: string }[];
    };
    assert.equal(output.index.loaded, true);
    assert.equal(output.index.truncated, false);
    assert.equal(output.index.path, path.join(memoryDir, "MEMORY.md"));
    assert.ok(output.files.some((file) => file.type === "AutoMem"));
    assert.match(output.context, /Contents of .*MEMORY\.md \(user's auto-memory/);
  });

  it("offers a remember prompt that asks the model to save what the user said", async () => {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(
      prompts.map((prompt) => prompt.name),
      ["remember"],
    );
    const prompt = await client.getPrompt({
      name: "remember",
      arguments: { statement: "we deploy on Fridays" },
    });
    const body = (prompt.messages[0].content as { text: string }).text;
    assert.match(body, /we deploy on Fridays/);
    assert.match(body, /memory save tool/);
  });

  it("logs on stderr", () => {
    assert.match(stderr, /memdir mcp: serving/);
  });
});

describe("memdir mcp stdout", () => {
  it("carries only JSON-RPC messages, and the server exits when stdin closes", async () => {
    const home = makeTempDir("memdir-mcp-raw-");
    const memoryDir = workedExampleMemoryDir(home);
    const child = spawn(process.execPath, [...cliNodeArgs(), "mcp", "--dir", memoryDir], {
      cwd: home,
      env: { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.resume();
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const responses = (count: number) =>
      waitFor(() => stdout.split("\n").filter((line) => line.includes('"id"')).length >= count, {
        what: `${count} responses`,
      });
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    });
    await responses(1);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "memory_list", arguments: {} } });
    send({
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "memory_recall", arguments: { query: "登录 集成测试 数据库" } },
    });
    await responses(4);
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    child.stdin.end();
    assert.equal(await exited, 0, "the server exits cleanly when the client closes stdin");

    const lines = stdout.split("\n").filter((line) => line !== "");
    assert.equal(lines.length, 4);
    for (const line of lines) {
      const message = JSON.parse(line) as { jsonrpc: string; id: number };
      assert.equal(message.jsonrpc, "2.0", `not a JSON-RPC message: ${line}`);
    }
    const ids = lines.map((line) => (JSON.parse(line) as { id: number }).id);
    assert.deepEqual(ids, [1, 2, 3, 4]);
  });
});

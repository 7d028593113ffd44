// One "remember …" ends as one memory whichever way it arrives (docs/design.md#one-explicit-save):
// the prompt hook's save, the model's memory_save after it, and the same memory_save twice — with
// the real MCP client over stdio and the real `memdir hook` process beside it, on one memory dir.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { sanitizeProjectPath } from "../../src/memdir/location/paths.ts";
import { runCli } from "../helpers/cli.ts";
import { cliNodeArgs } from "../helpers/node-entry.ts";
import { makeTempDir } from "../helpers/temp.ts";
import { writeWorkedExample } from "./worked-example.ts";

function text(result: CallToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

function memoryFiles(memoryDir: string): string[] {
  return fs
    .readdirSync(memoryDir)
    .filter((file) => file.endsWith(".md") && file !== "MEMORY.md")
    .sort();
}

describe("one explicit save", () => {
  const home = makeTempDir("memdir-one-save-");
  const project = path.join(home, "shop");
  fs.mkdirSync(project);
  const memoryDir = path.join(home, ".claude", "projects", sanitizeProjectPath(project), "memory");
  writeWorkedExample(memoryDir);
  let client: Client;

  before(async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...cliNodeArgs(), "mcp"],
      cwd: project,
      env: { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1" },
      stderr: "pipe",
    });
    client = new Client({ name: "memdir-test", version: "0.0.0" });
    await client.connect(transport);
  });

  after(async () => {
    await client?.close();
  });

  const save = async (args: Record<string, string>) =>
    (await client.callTool({ name: "memory_save", arguments: args })) as CallToolResult;

  it("the hook saves a 'remember …', tells the model it is saved, and memory_save does not save it again", async () => {
    const hook = await runCli(["hook", "user-prompt-submit"], {
      home,
      input: JSON.stringify({
        session_id: "s-1",
        cwd: project,
        prompt: "remember that the staging database listens on port 5433",
      }),
    });
    assert.equal(hook.code, 0, hook.stderr);
    const context = JSON.parse(hook.stdout).hookSpecificOutput?.additionalContext ?? "";
    const saved = /memdir: Saved \w+ memory (\S+\.md)/.exec(context)?.[1];
    assert.ok(saved, context);
    assert.match(context, /already saved: do not save it again/);
    const before = memoryFiles(memoryDir);

    // What a model following "save it immediately" sends next: its own description, the user's
    // words, and a reason of its own.
    const again = await save({
      type: "project",
      description: "Staging database port",
      content: "The staging database listens on port 5433.\nWhy: 5432 is the local database's.",
    });
    assert.equal(again.isError, undefined, text(again));
    assert.match(text(again), new RegExp(`Already saved in this session as ${saved.replace(".", "\\.")}`));
    assert.match(text(again), /memdir saved it when the user asked to remember it/);
    assert.deepEqual(again.structuredContent, {
      file: saved,
      path: path.join(memoryDir, saved),
      created: false,
    });
    assert.deepEqual(memoryFiles(memoryDir), before, "nothing was written");
  });

  it("the same memory_save twice makes one memory and one index line", async () => {
    const args = {
      type: "feedback",
      description: "run the linter before every commit",
      content: "Run npm run lint before each commit.\nWhy: CI rejects lint errors.",
    };
    const first = await save(args);
    assert.equal((first.structuredContent as { created: boolean }).created, true, text(first));
    const { file } = first.structuredContent as { file: string };
    const second = await save(args);
    assert.equal((second.structuredContent as { created: boolean; file: string }).created, false);
    assert.equal((second.structuredContent as { file: string }).file, file);
    assert.equal(memoryFiles(memoryDir).filter((name) => name.startsWith("feedback-run")).length, 1);
    const index = fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8");
    assert.equal(index.split(`(${file})`).length - 1, 1, "one index line");
  });

  it("still saves a different memory, and one that only shares a subject with an older memory", async () => {
    const other = await save({
      type: "project",
      description: "release freeze",
      content: "The release freeze starts Thursday: no merges to main until Monday.",
    });
    assert.equal((other.structuredContent as { created: boolean }).created, true, text(other));
    // The worked example's memory about the login tests was saved before this session: a save on
    // the same subject is the model's call (memory_update exists), not a silent drop.
    const older = fs.readFileSync(path.join(memoryDir, "feedback-real-database.md"), "utf8");
    const body = older.split("---").slice(2).join("---").trim();
    const repeated = await save({
      type: "feedback",
      description: "login tests use a real database",
      content: body,
    });
    assert.equal((repeated.structuredContent as { created: boolean }).created, true, text(repeated));
  });
});

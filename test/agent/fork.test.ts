import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { runForkedAgent } from "../../src/agent/fork.ts";
import { memoryOnlyPermissions } from "../../src/agent/permissions.ts";
import { defaultTools } from "../../src/agent/tools.ts";
import type { Message } from "../../src/types.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";
import { scriptedClient } from "./scripted-client.ts";

function setup() {
  const home = makeTempDir();
  const project = path.join(home, "shop");
  const memoryDir = path.join(home, ".claude/projects/-shop/memory");
  writeTree(project, { "src/auth/login.ts": "export {};\n" });
  fs.mkdirSync(memoryDir, { recursive: true });
  return { project, memoryDir };
}

const conversation: Message[] = [
  { id: "1", role: "user", content: "记住：登录模块的集成测试不得 mock 数据库" },
  { id: "2", role: "assistant", content: [{ type: "text", text: "OK." }] },
];

describe("runForkedAgent", () => {
  it("writes inside the memory dir, is refused elsewhere, and reports both", async () => {
    const { project, memoryDir } = setup();
    const memoryFile = path.join(memoryDir, "feedback-real-database.md");
    const client = scriptedClient([
      {
        toolCalls: [
          {
            name: "Write",
            input: { file_path: memoryFile, content: "---\ndescription: d\ntype: feedback\n---\nbody\n" },
          },
          { name: "Write", input: { file_path: "src/auth/login.ts", content: "hacked" } },
        ],
      },
      "Saved one memory.",
    ]);
    const run = await runForkedAgent({
      messages: conversation,
      prompt: "Extract memories from the conversation above.",
      tools: defaultTools,
      client,
      permissions: memoryOnlyPermissions({ memoryDir }),
      cwd: project,
      memoryDir,
    });
    assert.deepEqual(run.filesWritten, [memoryFile]);
    assert.equal(run.refused.length, 1);
    assert.equal(run.refused[0].tool, "Write");
    assert.equal(fs.readFileSync(path.join(project, "src/auth/login.ts"), "utf8"), "export {};\n");
    assert.equal(run.turns, 2);
    assert.equal(run.text, "Saved one memory.");
    // The fork sees the conversation so far, then its prompt.
    const first = client.requests[0].messages;
    assert.equal(first[0].content, conversation[0].content);
    assert.equal(first.at(-1)?.content, "Extract memories from the conversation above.");
    assert.equal(conversation.length, 2, "the parent's messages are not changed");
  });

  it("stops after maxTurns model calls (5 by default)", async () => {
    const { project, memoryDir } = setup();
    const client = scriptedClient([{ toolCalls: [{ name: "Glob", input: { pattern: "*" } }] }]);
    const run = await runForkedAgent({
      messages: conversation,
      prompt: "loop forever",
      tools: defaultTools,
      client,
      permissions: memoryOnlyPermissions({ memoryDir }),
      cwd: project,
      memoryDir,
    });
    assert.equal(run.turns, 5);
    assert.equal(run.reason, "max_turns");
  });

  it("is aborted by the parent's signal without throwing", async () => {
    const { project, memoryDir } = setup();
    const parent = new AbortController();
    const client = scriptedClient([
      async (request) => {
        parent.abort();
        request.signal?.throwIfAborted();
        return "never";
      },
    ]);
    const run = await runForkedAgent({
      messages: conversation,
      prompt: "extract",
      tools: defaultTools,
      client,
      permissions: memoryOnlyPermissions({ memoryDir }),
      cwd: project,
      memoryDir,
      signal: parent.signal,
    });
    assert.equal(run.reason, "aborted");
  });
});

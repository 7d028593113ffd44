import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { type FakeStep, startFakeModelServer } from "../../src/testing/index.ts";
import type { Message } from "../../src/types.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

const MEMORY_TEXT =
  "---\ndescription: 登录模块的集成测试不得 mock 数据库\ntype: feedback\n---\nLogin integration tests hit a real database.\n";

/** A project, a memory dir and a stored session transcript of one turn. */
function setup() {
  const home = makeTempDir();
  const project = path.join(home, "shop");
  const memoryDir = path.join(home, "memory");
  writeTree(project, { "src/auth/login.ts": "export {};\n" });
  fs.mkdirSync(memoryDir, { recursive: true });
  const messages: Message[] = [
    { id: "m1", role: "user", content: "登录模块的集成测试不要 mock 数据库，上次因此漏掉了迁移失败" },
    { id: "m2", role: "assistant", content: [{ type: "text", text: "明白，以后用真实数据库。" }] },
  ];
  const transcript = path.join(home, "session-1.jsonl");
  fs.writeFileSync(
    transcript,
    messages
      .map((message) => JSON.stringify({ type: "message", sessionId: "session-1", message }))
      .join("\n"),
  );
  return { home, project, memoryDir, transcript };
}

async function modelEnv(script: FakeStep[]) {
  const server = await startFakeModelServer(script);
  after(() => server.close());
  return { server, env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.anthropicBaseURL } };
}

describe("memdir extract", () => {
  it("runs one extraction over a stored session and reports written and refused files as JSON", async () => {
    const { home, project, memoryDir, transcript } = setup();
    const { server, env } = await modelEnv([
      {
        toolCalls: [
          {
            name: "Write",
            input: { file_path: path.join(memoryDir, "feedback-real-database.md"), content: MEMORY_TEXT },
          },
          {
            name: "Write",
            input: {
              file_path: path.join(memoryDir, "MEMORY.md"),
              content: "- [Real database](feedback-real-database.md) — 登录模块的集成测试不得 mock 数据库\n",
            },
          },
          // The project's file by its absolute path (a relative one names a file in the memory dir).
          { name: "Write", input: { file_path: path.join(project, "src/auth/login.ts"), content: "hacked" } },
        ],
      },
      "Saved one memory.",
    ]);
    const result = await runCliInProcess(
      ["extract", "--transcript", transcript, "--dir", memoryDir, "--json"],
      {
        home,
        cwd: project,
        env,
      },
    );
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout);
    assert.deepEqual(report.written, ["feedback-real-database.md", "MEMORY.md"]);
    assert.deepEqual(report.saved, ["feedback-real-database.md"]);
    assert.equal(report.turns, 2);
    assert.equal(report.refused.length, 1);
    assert.equal(report.refused[0].path, path.join(project, "src/auth/login.ts"));
    assert.match(report.refused[0].reason, /only inside the memory directory/);
    assert.equal(fs.readFileSync(path.join(project, "src/auth/login.ts"), "utf8"), "export {};\n");
    assert.match(fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8"), /feedback-real-database\.md/);
    // The stored conversation is what the model saw, followed by the extraction prompt.
    assert.match(JSON.stringify(server.requests[0].body?.messages), /上次因此漏掉了迁移失败/);
    assert.match(server.requests[0].userText, /newest 2 messages/);
  });

  it("prints what it saved in one line", async () => {
    const { home, project, memoryDir, transcript } = setup();
    const { env } = await modelEnv([
      {
        toolCall: {
          name: "Write",
          input: { file_path: path.join(memoryDir, "feedback-real-database.md"), content: MEMORY_TEXT },
        },
      },
      "Saved.",
    ]);
    const result = await runCliInProcess(["extract", "--transcript", transcript, "--dir", memoryDir], {
      home,
      cwd: project,
      env,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "Saved 1 memory: feedback-real-database.md\n");
  });

  it("exits 1 with one line naming the variable to set when no model is configured", async () => {
    const { home, project, memoryDir, transcript } = setup();
    const result = await runCliInProcess(["extract", "--transcript", transcript, "--dir", memoryDir], {
      home,
      cwd: project,
    });
    assert.equal(result.code, 1);
    assert.equal(result.stderr.trim().split("\n").length, 1);
    assert.match(result.stderr, /ANTHROPIC_API_KEY/);
    assert.deepEqual(fs.readdirSync(memoryDir), []);
  });

  it("exits 1 when the model fails, saying so", async () => {
    const { home, project, memoryDir, transcript } = setup();
    const { env } = await modelEnv([{ error: 500, message: "overloaded" }]);
    const result = await runCliInProcess(["extract", "--transcript", transcript, "--dir", memoryDir], {
      home,
      cwd: project,
      env,
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /memdir: extract: /);
  });

  it("needs --transcript (usage error, exit 2)", async () => {
    const { home, memoryDir } = setup();
    const result = await runCliInProcess(["extract", "--dir", memoryDir], { home });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--transcript/);
  });
});

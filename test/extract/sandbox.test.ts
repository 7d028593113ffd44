// The extraction agent's sandbox, driven through the real forked agent with scripted Write calls
// (docs/design.md#the-forked-agent): refused paths come back to the model as readable tool errors, valid writes
// in the same run still land, and nothing outside the memory dir changes.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { runExtraction } from "../../src/extract/run-extraction.ts";
import { createAnthropicClient } from "../../src/model/anthropic.ts";
import { type FakeStep, startFakeModelServer } from "../../src/testing/index.ts";
import type { Message } from "../../src/types.ts";
import { memory } from "../helpers/memory.ts";
import {
  HOSTILE_PATH_CASES,
  makeHostileFixture,
  prepareHostileCase,
  snapshotOutside,
} from "../reliability/hostile-path-cases.ts";

const conversation: Message[] = [
  { id: "1", role: "user", content: "记住：登录模块的集成测试不得 mock 数据库" },
  { id: "2", role: "assistant", content: [{ type: "text", text: "好的。" }] },
];

async function fakeClient(script: FakeStep[]) {
  const server = await startFakeModelServer(script);
  after(() => server.close());
  return {
    server,
    client: createAnthropicClient({ apiKey: "test-key", baseURL: server.anthropicBaseURL, maxRetries: 0 }),
  };
}

describe("extraction sandbox", () => {
  it("refuses ../, absolute, symlinked, %2e%2e and full-width writes while the valid one lands", async () => {
    const fixture = makeHostileFixture();
    const { memoryDir, outside } = fixture;
    fs.symlinkSync(outside, path.join(memoryDir, "linked"));
    const hostile = [
      "../../outside.md",
      path.join(outside, "escape.md"),
      path.join(memoryDir, "linked", "escape.md"),
      "%2e%2e/escape.md",
      "．．／escape.md",
      `${memoryDir}/..\\escape.md`,
      "ok.md\u0000../../escape.md",
    ];
    const valid = path.join(memoryDir, "feedback-real-database.md");
    const { server, client } = await fakeClient([
      {
        toolCalls: [
          ...hostile.map((file_path) => ({
            name: "Write",
            input: { file_path, content: memory("escape", "body") },
          })),
          {
            name: "Write",
            input: { file_path: valid, content: memory("登录模块的集成测试不得 mock 数据库", "body") },
          },
          { name: "Write", input: { file_path: path.join(fixture.root, "settings.json"), content: "{}" } },
        ],
      },
      "Done.",
    ]);
    const before = snapshotOutside(fixture);
    const result = await runExtraction({
      messages: conversation,
      newMessageCount: 2,
      memoryDir,
      client,
    });

    assert.equal(result.ok, true);
    assert.deepEqual(result.saved, ["feedback-real-database.md"]);
    assert.deepEqual(
      result.refused.map((r) => r.path),
      [...hostile, path.join(fixture.root, "settings.json")],
    );
    for (const refusal of result.refused) assert.match(refusal.reason, /^Write refused: .*memory directory/);
    assert.match(result.refused[3].reason, /URL-encoded/);
    assert.match(result.refused[4].reason, /full-width/);
    assert.match(result.refused[2].reason, /symbolic link/);
    assert.deepEqual(snapshotOutside(fixture), before, "nothing outside the memory dir changed");
    assert.match(fs.readFileSync(valid, "utf8"), /登录模块/);
    // The refusals went back to the model as tool errors it can read.
    const toolResults = JSON.stringify(server.requests[1].body?.messages);
    assert.match(toolResults, /"is_error":true/);
    assert.match(toolResults, /outside the memory directory/);
  });

  it("refuses every write when the memory dir itself is a symlink to elsewhere", async () => {
    const fixture = makeHostileFixture();
    const linkedMemory = path.join(fixture.root, "projects", "-work-linked", "memory");
    fs.mkdirSync(path.dirname(linkedMemory), { recursive: true });
    fs.symlinkSync(fixture.outside, linkedMemory);
    const { client } = await fakeClient([
      {
        toolCall: {
          name: "Write",
          input: { file_path: path.join(linkedMemory, "a.md"), content: memory("a", "body") },
        },
      },
      "Done.",
    ]);
    const before = snapshotOutside(fixture);
    const result = await runExtraction({
      messages: conversation,
      newMessageCount: 2,
      memoryDir: linkedMemory,
      client,
    });
    assert.deepEqual(result.written, []);
    assert.match(result.refused[0]?.reason ?? "", /symbolic link/);
    assert.deepEqual(snapshotOutside(fixture), before);
  });

  it("refuses a credential even inside the memory dir (the single writer checks secrets)", async () => {
    const fixture = makeHostileFixture();
    const secret = `${"sk-ant-api03-"}${"A1b2C3d4E5f6G7h8".repeat(5)}`;
    const { client } = await fakeClient([
      {
        toolCall: {
          name: "Write",
          input: {
            file_path: path.join(fixture.memoryDir, "reference-key.md"),
            content: memory(secret, "body"),
          },
        },
      },
      "Done.",
    ]);
    const result = await runExtraction({
      messages: conversation,
      newMessageCount: 2,
      memoryDir: fixture.memoryDir,
      client,
    });
    assert.deepEqual(result.written, []);
    assert.equal(fs.existsSync(path.join(fixture.memoryDir, "reference-key.md")), false);
  });

  describe("the shared hostile-path table, through the forked agent", () => {
    for (const testCase of HOSTILE_PATH_CASES) {
      it(`leaves everything outside alone: ${testCase.name}`, async () => {
        const fixture = makeHostileFixture();
        const { memoryDir, requested } = prepareHostileCase(testCase, fixture);
        const { client } = await fakeClient([
          { toolCall: { name: "Write", input: { file_path: requested, content: "escaped\n" } } },
          "Done.",
        ]);
        const before = snapshotOutside(fixture);
        const indexBefore = fs.readFileSync(path.join(fixture.memoryDir, "MEMORY.md"), "utf8");
        const toolErrors: string[] = [];
        // Relative paths resolve against the memory dir (the fork works there).
        const result = await runExtraction({
          messages: conversation,
          newMessageCount: 2,
          memoryDir,
          client,
          onEvent: (event) => {
            if (event.type === "tool_result" && event.isError) toolErrors.push(event.content);
          },
        });
        assert.deepEqual(snapshotOutside(fixture), before, "something outside the memory dir changed");
        assert.equal(fs.readFileSync(path.join(fixture.memoryDir, "MEMORY.md"), "utf8"), indexBefore);
        // A path that only looks hostile as written may resolve inside (e.g. a folder named "~"):
        // then the file must really be inside the memory dir.
        for (const written of result.written) {
          const real = fs.realpathSync(path.join(memoryDir, written));
          assert.ok(
            real.startsWith(`${fs.realpathSync(fixture.memoryDir)}${path.sep}`),
            `${real} is outside`,
          );
        }
        // Refused by the permission check, or by the single writer's own check (a tool error).
        if (result.written.length === 0) assert.equal(toolErrors.length, 1, "the model was told why");
      });
    }
  });
});

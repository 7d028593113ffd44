import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { type FakeModelServer, type FakeStep, startFakeModelServer } from "../../src/testing/index.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

// `memdir recall --selector model` as a real child process against the fake model server.
// (Hybrid fallback and the no-model message are covered in test/cli/recall.test.ts.)

const QUERY = "修复 src/auth/login.integration.test.ts 的失败测试，保留现有测试方式。";

function workedExample(): { home: string; memoryDir: string } {
  const home = makeTempDir();
  const memoryDir = path.join(home, "memory");
  writeTree(memoryDir, {
    "MEMORY.md":
      "- [Real DB in tests](feedback-real-database.md) — no mocks\n- [Auth migration](project-auth-migration.md) — compliance\n",
    "feedback-real-database.md":
      "---\ndescription: 登录模块的集成测试不得 mock 数据库\ntype: feedback\n---\n集成测试必须连接真实数据库。\n",
    "project-auth-migration.md": "---\ndescription: 认证重构由合规要求推动\ntype: project\n---\n合规要求。\n",
  });
  const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
  for (const file of fs.readdirSync(memoryDir))
    fs.utimesSync(path.join(memoryDir, file), twoDaysAgo, twoDaysAgo);
  return { home, memoryDir };
}

/** Picks the manifest entries whose description mentions the database, as a model would. */
const pickDatabaseNotes: FakeStep = (request) => ({
  json: {
    selected_memories: request.userText
      .split("\n")
      .filter((line) => line.startsWith("- ") && line.includes("数据库"))
      .map((line) => /\] (\S+\.md) \(/.exec(line)?.[1] ?? "?"),
  },
});

describe("memdir recall with a model (CLI subprocess)", () => {
  const servers: FakeModelServer[] = [];
  after(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });
  async function serve(steps: FakeStep[]) {
    const server = await startFakeModelServer(steps);
    servers.push(server);
    return server;
  }

  it("recalls what the model picked from the manifest (--selector model --json)", async () => {
    const { home, memoryDir } = workedExample();
    const server = await serve([pickDatabaseNotes]);
    const result = await runCliInProcess(
      ["recall", QUERY, "--selector", "model", "--json", "--dir", memoryDir],
      {
        home,
        env: { ANTHROPIC_BASE_URL: server.anthropicBaseURL, ANTHROPIC_API_KEY: "x" },
      },
    );
    assert.equal(result.code, 0, result.stderr);
    const output = JSON.parse(result.stdout) as {
      selector: string;
      selected: { file: string }[];
      messages: { role: string; isMeta: boolean; content: string }[];
    };
    assert.equal(output.selector, "model");
    assert.deepEqual(
      output.selected.map((pick) => pick.file),
      ["feedback-real-database.md"],
    );
    assert.equal(output.messages.length, 1);
    assert.match(
      output.messages[0]!.content,
      /^<system-reminder>Memory \(saved 2 days ago\): .*feedback-real-database\.md:/,
    );

    assert.equal(server.requests.length, 1);
    const request = server.requests[0]!;
    assert.equal(request.path, "/v1/messages");
    assert.equal(request.apiKey, "x");
    assert.equal(request.body?.model, "claude-haiku-5-5");
    assert.equal(request.body?.max_tokens, 256);
    assert.ok(request.userText.includes(`Query: ${QUERY}`));
    assert.ok(request.userText.includes("project-auth-migration.md"), "the manifest lists every memory");
    assert.deepEqual(request.jsonSchema?.required, ["selected_memories"]);
  });

  it("works against an OpenAI-compatible local server", async () => {
    const { home, memoryDir } = workedExample();
    const server = await serve([pickDatabaseNotes]);
    const result = await runCliInProcess(
      ["recall", QUERY, "--selector", "model", "--json", "--dir", memoryDir],
      {
        home,
        env: { MEMDIR_PROVIDER: "openai", OPENAI_BASE_URL: server.openaiBaseURL, MEMDIR_MODEL: "qwen3:8b" },
      },
    );
    assert.equal(result.code, 0, result.stderr);
    const output = JSON.parse(result.stdout) as { selected: { file: string }[] };
    assert.deepEqual(
      output.selected.map((pick) => pick.file),
      ["feedback-real-database.md"],
    );
    assert.equal(server.requests[0]!.path, "/v1/chat/completions");
    assert.equal(server.requests[0]!.body?.model, "qwen3:8b");
  });

  it("explains a model failure, selects nothing and exits 1 with --selector model", async () => {
    const { home, memoryDir } = workedExample();
    const server = await serve([{ error: 400, message: "bad request from the fake" }]);
    const result = await runCliInProcess(
      ["recall", QUERY, "--selector", "model", "--explain", "--dir", memoryDir],
      {
        home,
        env: { ANTHROPIC_BASE_URL: server.anthropicBaseURL, ANTHROPIC_API_KEY: "x" },
      },
    );
    // The selector asked for did not answer: a script must not read the empty pick as its answer.
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /model failure: .*400/);
    assert.match(result.stdout, /would inject 0 memories/);
  });
});

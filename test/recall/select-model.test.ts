import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createAnthropicClient } from "../../src/model/anthropic.ts";
import type { ModelClient } from "../../src/model/client.ts";
import { createOpenAIClient } from "../../src/model/openai.ts";
import type { SideQueryFailure } from "../../src/model/side-query-failure.ts";
import { createModelSelector } from "../../src/recall/select-model.ts";
import { type FakeModelServer, type FakeStep, startFakeModelServer } from "../../src/testing/index.ts";
import type { MemoryHeader } from "../../src/types.ts";

const day = 86_400_000;
const header = (
  file: string,
  description: string,
  type: MemoryHeader["type"],
  age: number,
): MemoryHeader => ({
  file,
  path: `/mem/${file}`,
  mtimeMs: Date.UTC(2026, 0, 10) - age * day,
  size: 100,
  type,
  description,
});
const headers = [
  header("feedback-real-database.md", "登录模块的集成测试不得 mock 数据库", "feedback", 2),
  header("project-auth-migration.md", "认证重构由合规要求推动", "project", 5),
  header("reference-grep-usage.md", "how to call the Grep tool", "reference", 9),
];
const options = { k: 5, memoryDir: "/mem" };
const query = "修复 src/auth/login.integration.test.ts 的失败测试，保留现有测试方式。";

describe("createModelSelector", () => {
  const servers: FakeModelServer[] = [];
  after(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });
  async function anthropicFor(steps: FakeStep[]): Promise<{ server: FakeModelServer; client: ModelClient }> {
    const server = await startFakeModelServer(steps);
    servers.push(server);
    return {
      server,
      client: createAnthropicClient({ apiKey: "k", baseURL: server.anthropicBaseURL, maxRetries: 0 }),
    };
  }

  it("sends the query, the manifest and the schema, and returns what the server picked", async () => {
    const { server, client } = await anthropicFor([
      // Pick the memory whose manifest line mentions the database, as a real model would.
      (request) => ({
        json: {
          selected_memories: request.userText
            .split("\n")
            .filter((line) => line.includes("数据库"))
            .map((line) => /\] (\S+\.md) /.exec(line)![1]),
        },
      }),
    ]);
    const selection = await createModelSelector({ client }).select({ query, headers, ...options });
    const { picks } = selection;
    assert.deepEqual(
      picks.map((pick) => pick.file),
      ["feedback-real-database.md"],
    );
    assert.equal(picks[0]!.score, 1);
    assert.match(picks[0]!.reason, /picked by anthropic:/);
    assert.equal(selection.failure, undefined);
    assert.deepEqual(selection.unknownNames, []);
    assert.deepEqual(
      selection.shownToModel,
      headers.map((h) => h.file),
    );

    const request = server.requests[0]!;
    assert.ok(request.userText.startsWith(`Query: ${query}`));
    assert.ok(
      request.userText.includes(
        "- [feedback] feedback-real-database.md (2026-01-08T00:00:00.000Z): 登录模块的集成测试不得 mock 数据库",
      ),
    );
    assert.match(request.system, /at most 5/);
    assert.match(request.system, /empty list/);
    assert.equal(request.body?.max_tokens, 256);
    assert.deepEqual(request.jsonSchema?.required, ["selected_memories"]);
  });

  it("drops names that are not in the manifest, and duplicates, and keeps the model's order", async () => {
    const { client } = await anthropicFor([
      {
        json: {
          selected_memories: [
            "project-auth-migration.md",
            "invented.md",
            "./feedback-real-database.md",
            "project-auth-migration.md",
          ],
        },
      },
    ]);
    const { picks, unknownNames } = await createModelSelector({ client }).select({
      query,
      headers,
      ...options,
    });
    assert.deepEqual(
      picks.map((pick) => pick.file),
      ["project-auth-migration.md", "feedback-real-database.md"],
    );
    assert.ok(picks[0]!.score > picks[1]!.score);
    assert.deepEqual(unknownNames, ["invented.md"]);
  });

  it("returns at most k picks", async () => {
    const { server, client } = await anthropicFor([
      { json: { selected_memories: headers.map((h) => h.file) } },
    ]);
    const { picks } = await createModelSelector({ client }).select({ query, headers, ...options, k: 2 });
    assert.equal(picks.length, 2);
    assert.match(server.requests[0]!.system, /at most 2/);
  });

  it("tells the model which tools were just used, so it skips their usage notes", async () => {
    const { server, client } = await anthropicFor([{ json: { selected_memories: [] } }]);
    const { picks } = await createModelSelector({ client }).select({
      query: "grep for the login handler",
      headers,
      ...options,
      recentTools: ["Grep", "Read"],
    });
    assert.deepEqual([...picks], []);
    assert.match(server.requests[0]!.userText, /Tools used successfully this turn: Grep, Read/);
    assert.match(server.requests[0]!.system, /do not pick memories that only explain how to use those tools/);
    assert.match(server.requests[0]!.system, /warn/);
  });

  it("puts at most 200 headers in the manifest", async () => {
    const many = Array.from({ length: 250 }, (_, i) => header(`note-${i}.md`, `note ${i}`, "project", i));
    const { server, client } = await anthropicFor([
      { json: { selected_memories: ["note-0.md", "note-220.md"] } },
    ]);
    const { picks, shownToModel } = await createModelSelector({ client }).select({
      query: "notes",
      headers: many,
      ...options,
    });
    const manifestLines = server.requests[0]!.userText.split("\n").filter((line) => line.startsWith("- "));
    assert.equal(manifestLines.length, 200);
    assert.equal(shownToModel.length, 200);
    assert.deepEqual(
      picks.map((pick) => pick.file),
      ["note-0.md"],
    );
  });

  it("makes no model call when there are no memories", async () => {
    const { server, client } = await anthropicFor([]);
    assert.deepEqual(
      (await createModelSelector({ client }).select({ query, headers: [], ...options })).picks,
      [],
    );
    assert.equal(server.requests.length, 0);
  });

  it("answers an empty selection with the reason when the model fails", async () => {
    const { client } = await anthropicFor([{ error: 529, message: "overloaded" }]);
    const failures: SideQueryFailure[] = [];
    const { picks, failure } = await createModelSelector({
      client,
      onFailure: (failure) => failures.push(failure),
    }).select({ query, headers, ...options });
    assert.deepEqual(picks, []);
    assert.equal(failure?.kind, "model");
    assert.match(failure?.message ?? "", /529/);
    assert.equal(failures.length, 1);
    assert.equal(JSON.stringify(picks), "[]", "the picks are plain data");
  });

  it("answers an empty selection with a timeout reason when the model hangs", async () => {
    const { client } = await anthropicFor([{ hang: true }]);
    const { picks, failure } = await createModelSelector({ client, timeoutMs: 50 }).select({
      query,
      headers,
      ...options,
    });
    assert.deepEqual(picks, []);
    assert.equal(failure?.kind, "timeout");
  });

  it("works the same through an OpenAI-compatible server", async () => {
    const server = await startFakeModelServer([
      { json: { selected_memories: ["project-auth-migration.md"] } },
    ]);
    servers.push(server);
    const client = createOpenAIClient({ apiKey: "k", baseURL: server.openaiBaseURL, maxRetries: 0 });
    const { picks } = await createModelSelector({ client }).select({ query, headers, ...options });
    assert.deepEqual(
      picks.map((pick) => pick.file),
      ["project-auth-migration.md"],
    );
    const format = server.requests[0]!.body?.response_format as {
      type: string;
      json_schema: { strict: boolean };
    };
    assert.equal(format.type, "json_schema");
    assert.equal(format.json_schema.strict, true);
  });
});

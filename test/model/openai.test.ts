import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { z } from "zod";
import { createOpenAIClient, toOpenAIMessages } from "../../src/model/openai.ts";
import { sideQuery } from "../../src/model/side-query.ts";
import { startFakeModelServer } from "../../src/testing/index.ts";
import { runModelClientSuite } from "./client-suite.ts";

runModelClientSuite({
  label: "openai",
  retryStatus: 429,
  create: (server, options) =>
    createOpenAIClient({
      apiKey: "test-key",
      baseURL: server.openaiBaseURL,
      model: "gpt-test",
      maxRetries: options?.maxRetries ?? 0,
    }),
});

describe("openai-compatible client specifics", () => {
  const closers: (() => Promise<void>)[] = [];
  after(async () => {
    await Promise.all(closers.map((close) => close()));
  });
  const schema = z.object({ selected_memories: z.array(z.string()) });
  const formatOf = (body: Record<string, unknown> | null) =>
    (body?.response_format as { type?: string } | undefined)?.type;

  it("falls back to json_object with the schema in the system prompt when a server rejects json_schema", async () => {
    const server = await startFakeModelServer([
      {
        error: 400,
        message: "Invalid parameter: response_format of type json_schema is not supported by this model",
      },
      { json: { selected_memories: ["a.md"] } },
      { json: { selected_memories: [] } },
    ]);
    closers.push(server.close);
    const client = createOpenAIClient({
      apiKey: "local",
      baseURL: server.openaiBaseURL,
      model: "llama",
      maxRetries: 0,
    });
    const ask = () => sideQuery(client, { system: "Pick.", user: "Query: q", schema, maxTokens: 256 });
    assert.deepEqual(await ask(), { ok: true, data: { selected_memories: ["a.md"] } });
    const [rejected, fallback] = server.requests;
    assert.equal(formatOf(rejected!.body), "json_schema");
    assert.equal(formatOf(fallback!.body), "json_object");
    assert.match(fallback!.system, /selected_memories/);
    // The server's answer is remembered: the next call goes straight to json_object.
    assert.deepEqual(await ask(), { ok: true, data: { selected_memories: [] } });
    assert.equal(server.requests.length, 3);
    assert.equal(formatOf(server.requests[2]!.body), "json_object");
  });

  it("does not retry with another format for a 400 about something else", async () => {
    const server = await startFakeModelServer([{ error: 400, message: "model not found" }]);
    closers.push(server.close);
    const client = createOpenAIClient({ apiKey: "k", baseURL: server.openaiBaseURL, maxRetries: 0 });
    const result = await sideQuery(client, { system: "Pick.", user: "q", schema, maxTokens: 256 });
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.failure.kind, "model");
    assert.equal(server.requests.length, 1);
  });

  it("sends max_tokens to local servers and the default model when none is named", async () => {
    const server = await startFakeModelServer(["ok"]);
    closers.push(server.close);
    const client = createOpenAIClient({ apiKey: "k", baseURL: server.openaiBaseURL, maxRetries: 0 });
    assert.equal(client.name, "openai:gpt-4.1-mini");
    await client.complete({ messages: [{ id: "1", role: "user", content: "hi" }], maxTokens: 77 });
    assert.equal(server.requests[0]!.body?.max_tokens, 77);
    assert.equal(server.requests[0]!.body?.model, "gpt-4.1-mini");
    assert.equal(server.requests[0]!.path, "/v1/chat/completions");
  });

  it("maps tool results to tool messages right after the assistant call, then the user's text", () => {
    const mapped = toOpenAIMessages([
      { id: "1", role: "user", content: "context", isMeta: true },
      { id: "2", role: "user", content: "Fix the test" },
      {
        id: "3",
        role: "assistant",
        content: [{ type: "tool_use", id: "call_1", name: "Read", input: { file_path: "/x" } }],
      },
      {
        id: "4",
        role: "user",
        content: [
          { type: "tool_result", toolUseId: "call_1", content: "body" },
          { type: "text", text: "memory reminder" },
        ],
      },
    ]);
    assert.deepEqual(mapped, [
      { role: "user", content: "context\n\nFix the test" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "Read", arguments: '{"file_path":"/x"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "body" },
      { role: "user", content: "memory reminder" },
    ]);
  });
});

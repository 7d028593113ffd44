import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { z } from "zod";
import { createAnthropicClient, toAnthropicMessages } from "../../src/model/anthropic.ts";
import { sideQuery } from "../../src/model/side-query.ts";
import { startFakeModelServer } from "../../src/testing/index.ts";
import { runModelClientSuite } from "./client-suite.ts";

runModelClientSuite({
  label: "anthropic",
  retryStatus: 529,
  create: (server, options) =>
    createAnthropicClient({
      apiKey: "test-key",
      baseURL: server.anthropicBaseURL,
      model: "claude-test",
      maxRetries: options?.maxRetries ?? 0,
    }),
});

describe("anthropic client specifics", () => {
  const closers: (() => Promise<void>)[] = [];
  after(async () => {
    await Promise.all(closers.map((close) => close()));
  });

  it("sends the SDK's API version by default and a proxy's older version when told", async () => {
    const server = await startFakeModelServer(["a", "b"]);
    closers.push(server.close);
    const plain = createAnthropicClient({
      apiKey: "test-key",
      baseURL: server.anthropicBaseURL,
      maxRetries: 0,
    });
    await plain.complete({ messages: [{ id: "1", role: "user", content: "hi" }], maxTokens: 5 });
    const old = createAnthropicClient({
      apiKey: "test-key",
      baseURL: server.anthropicBaseURL,
      maxRetries: 0,
      headers: { "anthropic-version": "2023-06-01", "x-api-key": "test-key" },
    });
    await old.complete({ messages: [{ id: "1", role: "user", content: "hi" }], maxTokens: 5 });
    assert.equal(server.requests[0]!.headers["anthropic-version"], "2026-10-21");
    assert.equal(server.requests[0]!.headers.authorization, "Bearer test-key");
    assert.equal(server.requests[1]!.headers["anthropic-version"], "2023-06-01");
    assert.equal(server.requests[1]!.headers["x-api-key"], "test-key");
  });

  it("sends the default model when the request names none", async () => {
    const server = await startFakeModelServer(["a"]);
    closers.push(server.close);
    const client = createAnthropicClient({ apiKey: "k", baseURL: server.anthropicBaseURL, maxRetries: 0 });
    assert.equal(client.name, "anthropic:claude-sonnet-5-5");
    await client.complete({ messages: [{ id: "1", role: "user", content: "hi" }], maxTokens: 5 });
    assert.equal(server.requests[0]!.body?.model, "claude-sonnet-5-5");
  });

  it("falls back to a forced tool call when a proxy rejects output_config", async () => {
    const server = await startFakeModelServer([
      { error: 400, message: "output_config: Extra inputs are not permitted" },
      (request) =>
        request.body?.tool_choice
          ? { toolCall: { name: "memory_selection", input: { selected_memories: ["a.md"] } } }
          : "no",
      (request) =>
        request.body?.output_config
          ? "wrong"
          : { toolCall: { name: "memory_selection", input: { selected_memories: [] } } },
    ]);
    closers.push(server.close);
    const client = createAnthropicClient({ apiKey: "k", baseURL: server.anthropicBaseURL, maxRetries: 0 });
    const schema = z.object({ selected_memories: z.array(z.string()) });
    const ask = () =>
      sideQuery(client, { system: "Pick.", user: "q", schema, name: "memory_selection", maxTokens: 256 });
    assert.deepEqual(await ask(), { ok: true, data: { selected_memories: ["a.md"] } });
    assert.deepEqual(server.requests[1]!.body?.tool_choice, { type: "tool", name: "memory_selection" });
    assert.equal(server.requests[1]!.body?.output_config, undefined);
    // Remembered: the next side query goes straight to the tool.
    assert.deepEqual(await ask(), { ok: true, data: { selected_memories: [] } });
    assert.equal(server.requests.length, 3);
  });

  it("turns meta messages into user turns, merges same-role turns and puts tool results first", () => {
    const mapped = toAnthropicMessages([
      { id: "1", role: "user", content: "<system-reminder>context</system-reminder>", isMeta: true },
      { id: "2", role: "user", content: "Fix the login test" },
      {
        id: "3",
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "/x" } }],
      },
      {
        id: "4",
        role: "user",
        content: [{ type: "tool_result", toolUseId: "toolu_1", content: "file body", isError: true }],
      },
      { id: "5", role: "user", content: "<system-reminder>Memory: …</system-reminder>", isMeta: true },
      { id: "6", role: "assistant", content: "" },
    ]);
    assert.deepEqual(mapped, [
      {
        role: "user",
        content: [
          { type: "text", text: "<system-reminder>context</system-reminder>" },
          { type: "text", text: "Fix the login test" },
        ],
      },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "/x" } }],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "file body", is_error: true },
          { type: "text", text: "<system-reminder>Memory: …</system-reminder>" },
        ],
      },
    ]);
  });
});

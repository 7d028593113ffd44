import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { z } from "zod";
import { createAnthropicClient } from "../../src/model/anthropic.ts";
import { sideQuery } from "../../src/model/side-query.ts";
import { type FakeStep, startFakeModelServer } from "../../src/testing/index.ts";
import { waitFor } from "../helpers/wait.ts";

const schema = z.object({ selected_memories: z.array(z.string()) });

describe("sideQuery", () => {
  const closers: (() => Promise<void>)[] = [];
  after(async () => {
    await Promise.all(closers.map((close) => close()));
  });
  async function clientFor(steps: FakeStep[]) {
    const server = await startFakeModelServer(steps);
    closers.push(server.close);
    return {
      server,
      client: createAnthropicClient({ apiKey: "k", baseURL: server.anthropicBaseURL, maxRetries: 0 }),
    };
  }
  const ask = (
    client: ReturnType<typeof createAnthropicClient>,
    extra: { timeoutMs?: number; signal?: AbortSignal } = {},
  ) => sideQuery(client, { system: "Pick.", user: "Query: login tests", schema, maxTokens: 256, ...extra });

  it("returns the parsed data and sends the zod schema as plain JSON schema", async () => {
    const { server, client } = await clientFor([{ json: { selected_memories: ["a.md"] } }]);
    assert.deepEqual(await ask(client), { ok: true, data: { selected_memories: ["a.md"] } });
    const request = server.requests[0]!;
    assert.deepEqual(request.jsonSchema, {
      type: "object",
      properties: { selected_memories: { type: "array", items: { type: "string" } } },
      required: ["selected_memories"],
      additionalProperties: false,
    });
    assert.equal(request.body?.max_tokens, 256);
    assert.equal(request.userText, "Query: login tests");
  });

  it("reports a timeout when the model hangs longer than timeoutMs", async () => {
    const { client } = await clientFor([{ hang: true }]);
    const result = await ask(client, { timeoutMs: 50 });
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.failure.kind, "timeout");
    assert.match(!result.ok ? result.failure.message : "", /timed out after 50 ms/);
  });

  it("reports an abort when the caller's signal fires, without calling when already aborted", async () => {
    const { server, client } = await clientFor([{ hang: true }]);
    const controller = new AbortController();
    const pending = ask(client, { signal: controller.signal });
    await waitFor(() => server.requests.length > 0, { interval: 5, what: "the request" });
    controller.abort();
    const result = await pending;
    assert.equal(!result.ok && result.failure.kind, "aborted");
    const again = await ask(client, { signal: controller.signal });
    assert.equal(!again.ok && again.failure.kind, "aborted");
    assert.equal(server.requests.length, 1);
  });

  it("turns an HTTP error into a model failure instead of throwing", async () => {
    const { client } = await clientFor([{ error: 500, message: "kaput" }]);
    const result = await ask(client);
    assert.equal(!result.ok && result.failure.kind, "model");
    assert.match(!result.ok ? result.failure.message : "", /HTTP 500/);
  });

  it("accepts JSON wrapped in a code fence, as local models like to send", async () => {
    const { client } = await clientFor(['```json\n{"selected_memories": ["b.md"]}\n```']);
    assert.deepEqual(await ask(client), { ok: true, data: { selected_memories: ["b.md"] } });
  });
});

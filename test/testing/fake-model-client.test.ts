import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createAnthropicClient } from "../../src/entry/model.ts";
import { isMemdirError } from "../../src/errors.ts";
import type { ModelRequest, ModelStreamEvent } from "../../src/model/client.ts";
import { createFakeModelClient, type FakeStep, startFakeModelServer } from "../../src/testing/index.ts";

const ask = (content: string, extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ id: "u1", role: "user", content }],
  maxTokens: 200,
  ...extra,
});

describe("createFakeModelClient (memdir/testing)", () => {
  it("answers a script's text, tool calls and JSON as the Anthropic client does through the fake server", async () => {
    const script: FakeStep[] = [
      "Hello there.",
      { toolCall: { name: "Read", input: { file_path: "/tmp/x.md" } }, text: "Reading." },
      { json: { selected_memories: ["feedback-testing.md"] } },
    ];
    const fake = createFakeModelClient(script);
    const server = await startFakeModelServer(script);
    try {
      const wire = createAnthropicClient({ apiKey: "test", baseURL: server.anthropicBaseURL, maxRetries: 0 });
      for (const request of [ask("hi"), ask("read it"), ask("pick")]) {
        const [inProcess, overHttp] = [await fake.complete(request), await wire.complete(request)];
        const shape = (r: typeof inProcess) => ({
          stopReason: r.stopReason,
          content: r.content.map((b) => (b.type === "tool_use" ? { ...b, id: "id" } : b)),
        });
        assert.deepEqual(shape(inProcess), shape(overHttp));
      }
    } finally {
      await server.close();
    }
    assert.deepEqual(
      fake.requests.map((r) => r.messages[0].content),
      ["hi", "read it", "pick"],
    );
    assert.equal(fake.remaining, 0);
  });

  it("streams text deltas, then the whole response", async () => {
    const fake = createFakeModelClient(["A reply long enough to arrive in several pieces."]);
    const events: ModelStreamEvent[] = [];
    for await (const event of fake.stream!(ask("hi"))) events.push(event);
    const deltas = events.filter((e) => e.type === "text_delta");
    assert.ok(deltas.length > 1);
    assert.equal(
      deltas.map((e) => (e.type === "text_delta" ? e.text : "")).join(""),
      "A reply long enough to arrive in several pieces.",
    );
    const done = events.at(-1);
    assert.equal(done?.type, "done");
    assert.equal(fake.fakeRequests[0].stream, true);
  });

  it("hands step functions the request's user text and system prompt, as the server does", async () => {
    const fake = createFakeModelClient((request) => `You said: ${request.userText} (${request.system})`);
    const reply = await fake.complete(ask("deploys on friday?", { system: "be brief" }));
    assert.deepEqual(reply.content, [{ type: "text", text: "You said: deploys on friday? (be brief)" }]);
  });

  it("repairs a malformed JSON reply once, sending the bad reply back", async () => {
    const fake = createFakeModelClient([{ malformedJson: "{oops" }, { json: { ok: true } }]);
    const reply = await fake.complete(
      ask("pick", { jsonSchema: { name: "pick", schema: { type: "object" } } }),
    );
    assert.deepEqual(reply.content, [{ type: "text", text: '{"ok":true}' }]);
    assert.equal(fake.requests.length, 2);
    assert.equal(fake.requests[1].messages[1].content, "{oops");
  });

  it("rejects a scripted error, an aborted hang and a request past the script's end", async () => {
    const fake = createFakeModelClient([{ error: 529, message: "overloaded" }, { hang: true }]);
    await assert.rejects(fake.complete(ask("one")), (error) => {
      assert.ok(isMemdirError(error, "model"));
      assert.match(error.message, /HTTP 529: overloaded/);
      return true;
    });
    const controller = new AbortController();
    const hanging = fake.complete(ask("two", { signal: controller.signal }));
    controller.abort();
    await assert.rejects(hanging, (error) => isMemdirError(error, "aborted"));
    await assert.rejects(fake.complete(ask("three")), /no step left for request 3/);
  });
});

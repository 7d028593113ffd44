// One behaviour suite that every ModelClient implementation must pass, run against the fake model
// server over real HTTP (docs/design.md#one-suite-per-interface: one suite, every driver).
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { z } from "zod";
import { isMemdirError } from "../../src/errors.ts";
import type { ModelClient, ModelStreamEvent } from "../../src/model/client.ts";
import { responseText } from "../../src/model/json-repair.ts";
import { sideQuery } from "../../src/model/side-query.ts";
import { type FakeModelServer, type FakeStep, startFakeModelServer } from "../../src/testing/index.ts";
import type { Message } from "../../src/types.ts";
import { waitFor } from "../helpers/wait.ts";

export interface ClientUnderTest {
  label: string;
  /** The HTTP status this provider uses to say "busy, retry later". */
  retryStatus: number;
  create(server: FakeModelServer, options?: { maxRetries?: number }): ModelClient;
}

const user = (content: string): Message => ({ id: "u1", role: "user", content });

const weatherTool = {
  name: "get_weather",
  description: "Current weather for a city",
  inputSchema: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
    additionalProperties: false,
  },
};

/** Runs the shared cases for one client. */
export function runModelClientSuite(subject: ClientUnderTest): void {
  const servers: FakeModelServer[] = [];
  after(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });
  async function serve(steps: FakeStep[]): Promise<FakeModelServer> {
    const server = await startFakeModelServer(steps);
    servers.push(server);
    return server;
  }

  describe(`${subject.label} client (shared model-client suite)`, () => {
    it("returns plain text with usage, sending the key and no sampling parameters", async () => {
      const server = await serve(["Hello there"]);
      const client = subject.create(server);
      const reply = await client.complete({
        system: "Be brief.",
        messages: [user("Say hello")],
        maxTokens: 64,
      });
      assert.equal(responseText(reply), "Hello there");
      assert.equal(reply.stopReason, "end_turn");
      assert.ok(reply.usage.inputTokens > 0 && reply.usage.outputTokens > 0);
      assert.equal(server.requests.length, 1);
      const request = server.requests[0]!;
      assert.equal(request.apiKey, "test-key");
      assert.equal(request.system, "Be brief.");
      assert.equal(request.userText, "Say hello");
      for (const banned of ["temperature", "top_p", "top_k"])
        assert.equal(request.body?.[banned], undefined, banned);
    });

    it("completes a tool-use round trip, sending the tool result back under the call's id", async () => {
      const server = await serve([
        { toolCall: { name: "get_weather", input: { city: "Paris" } } },
        "Sunny, 22°C.",
      ]);
      const client = subject.create(server);
      const first = await client.complete({
        messages: [user("Weather in Paris?")],
        tools: [weatherTool],
        maxTokens: 200,
      });
      assert.equal(first.stopReason, "tool_use");
      const call = first.content.find((block) => block.type === "tool_use");
      assert.ok(call && call.type === "tool_use");
      assert.equal(call.name, "get_weather");
      assert.deepEqual(call.input, { city: "Paris" });
      assert.ok(call.id.length > 0);

      const second = await client.complete({
        messages: [
          user("Weather in Paris?"),
          { id: "a1", role: "assistant", content: first.content },
          {
            id: "u2",
            role: "user",
            content: [{ type: "tool_result", toolUseId: call.id, content: "22°C and sunny" }],
          },
        ],
        tools: [weatherTool],
        maxTokens: 200,
      });
      assert.equal(responseText(second), "Sunny, 22°C.");
      const sent = JSON.stringify(server.requests[1]!.body);
      assert.ok(sent.includes(call.id), "the tool result names the call id");
      assert.ok(sent.includes("22°C and sunny"), "the tool result content is sent");
      assert.ok(sent.includes("get_weather"), "the tool definition is sent");
    });

    it("asks for JSON-schema output and returns the JSON text", async () => {
      const schema = {
        type: "object",
        properties: { answer: { type: "number" } },
        required: ["answer"],
        additionalProperties: false,
      };
      const server = await serve([(request) => ({ json: { answer: request.jsonSchema ? 42 : -1 } })]);
      const client = subject.create(server);
      const reply = await client.complete({
        messages: [user("What is six times seven?")],
        maxTokens: 50,
        jsonSchema: { name: "answer", schema },
      });
      assert.deepEqual(JSON.parse(responseText(reply)), { answer: 42 });
      assert.deepEqual(server.requests[0]!.jsonSchema, schema);
    });

    it("streams text deltas and ends with the full response", async () => {
      const server = await serve(["Streaming works, one piece at a time."]);
      const client = subject.create(server);
      assert.ok(client.stream, "client streams");
      const events: ModelStreamEvent[] = [];
      for await (const event of client.stream({ messages: [user("stream please")], maxTokens: 100 }))
        events.push(event);
      const deltas = events.filter((event) => event.type === "text_delta");
      assert.ok(deltas.length > 1, "several deltas");
      assert.equal(deltas.map((event) => event.text).join(""), "Streaming works, one piece at a time.");
      const done = events.at(-1);
      assert.ok(done?.type === "done");
      assert.equal(responseText(done.response), "Streaming works, one piece at a time.");
      assert.equal(server.requests[0]!.stream, true);
    });

    it("streams a tool call whose arguments arrive in pieces", async () => {
      const input = { city: "São Paulo", note: 'quotes " and \\ backslashes' };
      const server = await serve([{ toolCall: { name: "get_weather", input } }]);
      const client = subject.create(server);
      const events: ModelStreamEvent[] = [];
      for await (const event of client.stream!({
        messages: [user("weather?")],
        tools: [weatherTool],
        maxTokens: 100,
      })) {
        events.push(event);
      }
      const toolEvent = events.find((event) => event.type === "tool_use");
      assert.ok(toolEvent?.type === "tool_use");
      assert.deepEqual(toolEvent.block.input, input);
      const done = events.at(-1);
      assert.ok(done?.type === "done");
      assert.equal(done.response.stopReason, "tool_use");
      assert.deepEqual(done.response.content, [toolEvent.block]);
    });

    it("aborts a hanging request when the signal fires", async () => {
      const server = await serve([{ hang: true }]);
      const client = subject.create(server);
      const controller = new AbortController();
      const pending = client.complete({ messages: [user("hang")], maxTokens: 10, signal: controller.signal });
      await waitFor(() => server.requests.length > 0, { interval: 5, what: "the request" });
      controller.abort();
      await assert.rejects(pending, (error) => isMemdirError(error, "aborted"));
    });

    it(`retries a ${subject.retryStatus} that carries retry-after-ms`, async () => {
      const server = await serve([
        { error: subject.retryStatus, retryAfterMs: 5, message: "busy" },
        "recovered",
      ]);
      const client = subject.create(server, { maxRetries: 2 });
      const reply = await client.complete({ messages: [user("hi")], maxTokens: 10 });
      assert.equal(responseText(reply), "recovered");
      assert.equal(server.requests.length, 2);
      assert.equal(server.requests[1]!.headers["x-stainless-retry-count"], "1");
    });

    it(`reports a ${subject.retryStatus} as a model error when retries are off`, async () => {
      const server = await serve([{ error: subject.retryStatus, retryAfterMs: 5, message: "busy" }]);
      const client = subject.create(server, { maxRetries: 0 });
      await assert.rejects(
        client.complete({ messages: [user("hi")], maxTokens: 10 }),
        (error) => isMemdirError(error, "model") && error.message.includes(String(subject.retryStatus)),
      );
      assert.equal(server.requests.length, 1);
    });

    it("repairs malformed JSON once by sending the bad reply and the problem back", async () => {
      const server = await serve([{ malformedJson: true }, { json: { selected_memories: ["a.md"] } }]);
      const client = subject.create(server);
      const result = await sideQuery(client, {
        system: "Pick files.",
        user: "Query: x",
        schema: z.object({ selected_memories: z.array(z.string()) }),
        maxTokens: 256,
      });
      assert.deepEqual(result, { ok: true, data: { selected_memories: ["a.md"] } });
      assert.equal(server.requests.length, 2);
      const repair = server.requests[1]!;
      assert.match(repair.userText, /not valid JSON/);
      assert.ok(JSON.stringify(repair.body).includes("unterminated"), "the bad reply is shown to the model");
    });

    it("gives up after one repair and reports the reply as invalid", async () => {
      const server = await serve([{ malformedJson: "nope" }, { json: { wrong: true } }]);
      const client = subject.create(server);
      const result = await sideQuery(client, {
        system: "Pick files.",
        user: "Query: x",
        schema: z.object({ selected_memories: z.array(z.string()) }),
        maxTokens: 256,
      });
      assert.equal(result.ok, false);
      assert.equal(!result.ok && result.failure.kind, "invalid");
      assert.equal(server.requests.length, 2);
    });
  });
}

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { type FakeStep, startFakeModelServer } from "../../src/testing/index.ts";

// The Responses API as Codex CLI reads it (codex-rs/codex-api/src/sse/responses.rs): the event
// names, the items in output_item.done, and response.completed with its usage.

const MEMDIR_TOOLS = {
  type: "namespace",
  name: "mcp__memdir",
  description: "memdir's MCP tools",
  tools: [
    { type: "function", name: "memory_save", parameters: { type: "object" } },
    { type: "function", name: "memory_recall", parameters: { type: "object" } },
  ],
};

const responsesBody = (extra: Record<string, unknown> = {}) => ({
  model: "fake-model",
  instructions: "be brief",
  input: [
    { type: "message", role: "developer", content: [{ type: "input_text", text: "dev rules" }] },
    { type: "message", role: "user", content: [{ type: "input_text", text: "earlier" }] },
    { type: "message", role: "user", content: [{ type: "input_text", text: "hello" }] },
  ],
  tools: [{ type: "function", name: "exec_command", parameters: { type: "object" } }, MEMDIR_TOOLS],
  ...extra,
});

interface SseEvent {
  event: string;
  data: Record<string, unknown> & { type: string };
}

function parseSse(text: string): SseEvent[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const event = /^event: (.+)$/m.exec(block)?.[1] ?? "";
      const data = JSON.parse(/^data: (.+)$/m.exec(block)?.[1] ?? "null") as SseEvent["data"];
      return { event, data };
    });
}

describe("the fake server's Responses API (POST /v1/responses)", () => {
  const closers: (() => Promise<void>)[] = [];
  after(async () => {
    await Promise.all(closers.map((close) => close()));
  });
  async function serve(script: FakeStep[]) {
    const server = await startFakeModelServer(script);
    closers.push(server.close);
    return server;
  }
  const post = (url: string, body: unknown) =>
    fetch(`${url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer dummy" },
      body: JSON.stringify(body),
    });

  it("records the request with its instructions, developer text and last user message", async () => {
    const server = await serve(["hi"]);
    await (await post(server.url, responsesBody())).text();
    const [request] = server.requests;
    assert.equal(request!.api, "openai-responses");
    assert.equal(request!.path, "/v1/responses");
    assert.equal(request!.system, "be brief\ndev rules");
    assert.equal(request!.userText, "hello");
    assert.equal(request!.apiKey, "dummy");
  });

  it("answers a JSON request with a completed response: the message item and usage", async () => {
    const server = await serve(["The freeze starts Friday."]);
    const response = (await (await post(server.url, responsesBody())).json()) as {
      object: string;
      status: string;
      output: { type: string; role: string; content: { type: string; text: string }[] }[];
      usage: { input_tokens: number; output_tokens: number; total_tokens: number };
    };
    assert.equal(response.object, "response");
    assert.equal(response.status, "completed");
    assert.deepEqual(
      response.output.map((item) => [item.type, item.role, item.content[0]?.type, item.content[0]?.text]),
      [["message", "assistant", "output_text", "The freeze starts Friday."]],
    );
    assert.ok(response.usage.input_tokens > 0 && response.usage.output_tokens > 0);
    assert.equal(response.usage.total_tokens, response.usage.input_tokens + response.usage.output_tokens);
  });

  it("streams the events Codex reads, in order, the text in several deltas", async () => {
    const server = await serve(["The freeze starts Friday at noon."]);
    const events = parseSse(await (await post(server.url, responsesBody({ stream: true }))).text());
    assert.ok(
      events.every(({ event, data }) => event === data.type),
      "event: names match data.type",
    );
    const names = events.map(({ event }) => event).filter((name) => name !== "response.output_text.delta");
    assert.deepEqual(names, [
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const deltas = events.filter(({ event }) => event === "response.output_text.delta");
    assert.ok(deltas.length > 1);
    assert.equal(deltas.map(({ data }) => data.delta).join(""), "The freeze starts Friday at noon.");
    const completed = events.at(-1)!.data.response as { id: string; usage: { output_tokens: number } };
    assert.match(completed.id, /^resp_fake_/);
    assert.ok(completed.usage.output_tokens > 0, "usage comes with response.completed");
    const sequence = events.map(({ data }) => data.sequence_number);
    assert.deepEqual(
      sequence,
      events.map((_, index) => index),
    );
  });

  it("puts a scripted MCP tool call in its namespace, the arguments split across deltas", async () => {
    const input = { type: "project", description: "release train", content: "Thursdays at 15:00 UTC" };
    const server = await serve([{ toolCall: { name: "mcp__memdir__memory_save", input } }]);
    const events = parseSse(await (await post(server.url, responsesBody({ stream: true }))).text());
    const done = events.filter(({ event }) => event === "response.output_item.done");
    assert.equal(done.length, 1, "a tool call alone: no empty message item");
    const item = done[0]!.data.item as Record<string, string>;
    assert.equal(item.type, "function_call");
    assert.equal(item.namespace, "mcp__memdir");
    assert.equal(item.name, "memory_save");
    assert.match(item.call_id!, /^call_fake_/);
    assert.deepEqual(JSON.parse(item.arguments!), input);
    const pieces = events.filter(({ event }) => event === "response.function_call_arguments.delta");
    assert.ok(pieces.length > 1);
    assert.equal(pieces.map(({ data }) => data.delta).join(""), item.arguments);
  });

  it("finds a bare tool name in the one namespace that has it, and leaves plain functions alone", async () => {
    const server = await serve([
      {
        toolCalls: [
          { name: "memory_recall", input: { query: "freeze" } },
          { name: "exec_command", input: { cmd: "ls" } },
          { name: "mcp__other__thing", input: {} },
        ],
      },
    ]);
    const response = (await (await post(server.url, responsesBody())).json()) as {
      output: { type: string; name: string; namespace?: string }[];
    };
    assert.deepEqual(
      response.output.map((item) => [item.type, item.namespace ?? null, item.name]),
      [
        ["function_call", "mcp__memdir", "memory_recall"],
        ["function_call", null, "exec_command"],
        ["function_call", null, "mcp__other__thing"],
      ],
    );
  });

  it("ends a max_tokens reply as incomplete, and sends errors in OpenAI's shape", async () => {
    const server = await serve([
      { text: "cut", stopReason: "max_tokens" },
      { error: 429, retryAfterMs: 5 },
    ]);
    const events = parseSse(await (await post(server.url, responsesBody({ stream: true }))).text());
    assert.equal(events.at(-1)!.event, "response.incomplete");
    const limited = await post(server.url, responsesBody());
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get("retry-after-ms"), "5");
    assert.equal(((await limited.json()) as { error: { type: string } }).error.type, "rate_limit_exceeded");
  });
});

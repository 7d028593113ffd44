import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { type FakeStep, startFakeModelServer } from "../../src/testing/index.ts";
import { waitFor } from "../helpers/wait.ts";

const anthropicBody = (extra: Record<string, unknown> = {}) => ({
  model: "m",
  max_tokens: 10,
  system: "sys",
  messages: [{ role: "user", content: [{ type: "text", text: "hello" }] }],
  ...extra,
});
const openaiBody = (extra: Record<string, unknown> = {}) => ({
  model: "m",
  messages: [
    { role: "system", content: "sys" },
    { role: "user", content: "hello" },
  ],
  ...extra,
});

describe("startFakeModelServer", () => {
  const closers: (() => Promise<void>)[] = [];
  after(async () => {
    await Promise.all(closers.map((close) => close()));
  });
  async function serve(script: FakeStep[] | ((r: never) => FakeStep)) {
    const server = await startFakeModelServer(script as FakeStep[]);
    closers.push(server.close);
    return server;
  }
  const post = (url: string, body: unknown, headers: Record<string, string> = { "x-api-key": "k" }) =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });

  it("listens on 127.0.0.1 and gives base URLs for both SDKs", async () => {
    const server = await serve([]);
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(server.anthropicBaseURL, server.url);
    assert.equal(server.openaiBaseURL, `${server.url}/v1`);
  });

  it("refuses a request without a key, like the real services", async () => {
    const server = await serve(["never sent"]);
    const response = await post(`${server.url}/v1/messages`, anthropicBody(), {});
    assert.equal(response.status, 401);
    assert.equal(((await response.json()) as { type: string }).type, "error");
    assert.equal(server.remaining, 1, "the step is kept for the next request");
  });

  it("accepts a bearer token and records the normalized request", async () => {
    const server = await serve(["hi"]);
    const response = await post(`${server.url}/v1/chat/completions`, openaiBody(), {
      authorization: "Bearer sk-test",
    });
    const completion = (await response.json()) as { choices: { message: { content: string } }[] };
    assert.equal(completion.choices[0]!.message.content, "hi");
    const [recorded] = server.requests;
    assert.equal(recorded!.api, "openai");
    assert.equal(recorded!.apiKey, "sk-test");
    assert.equal(recorded!.system, "sys");
    assert.equal(recorded!.userText, "hello");
    assert.equal(recorded!.stream, false);
  });

  it("answers a step function with what it decides from the request", async () => {
    const server = await serve([
      (request) => ({ json: { echoed: request.userText, api: request.api } }),
      (request) => `second: ${request.system}`,
    ]);
    const first = (await (await post(`${server.url}/v1/messages`, anthropicBody())).json()) as {
      content: { text: string }[];
    };
    assert.deepEqual(JSON.parse(first.content[0]!.text), { echoed: "hello", api: "anthropic" });
    const second = (await (await post(`${server.url}/v1/messages`, anthropicBody())).json()) as {
      content: { text: string }[];
    };
    assert.equal(second.content[0]!.text, "second: sys");
  });

  it("streams Anthropic SSE from message_start to message_stop", async () => {
    const server = await serve(["abcdefgh"]);
    const text = await (await post(`${server.url}/v1/messages`, anthropicBody({ stream: true }))).text();
    const events = [...text.matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
    assert.equal(events[0], "message_start");
    assert.equal(events.at(-1), "message_stop");
    assert.ok(events.filter((event) => event === "content_block_delta").length >= 2);
  });

  it("streams OpenAI chunks that split tool arguments and end with [DONE]", async () => {
    const server = await serve([{ toolCall: { name: "Read", input: { file_path: "/a/long/path.md" } } }]);
    const text = await (await post(`${server.url}/v1/chat/completions`, openaiBody({ stream: true }))).text();
    const lines = text.split("\n").filter((line) => line.startsWith("data: "));
    assert.equal(lines.at(-1), "data: [DONE]");
    const argumentPieces = lines
      .slice(0, -1)
      .map((line) => JSON.parse(line.slice(6)))
      .flatMap((chunk) => chunk.choices[0]?.delta?.tool_calls ?? [])
      .map((call: { function?: { arguments?: string } }) => call.function?.arguments ?? "")
      .filter((piece: string) => piece !== "");
    assert.ok(argumentPieces.length > 1, "arguments arrive in several chunks");
    assert.deepEqual(JSON.parse(argumentPieces.join("")), { file_path: "/a/long/path.md" });
  });

  it("sends scripted errors with retry headers in each provider's error shape", async () => {
    const server = await serve([
      { error: 529, retryAfterMs: 20 },
      { error: 429, retryAfter: 1, message: "slow down" },
    ]);
    const anthropic = await post(`${server.url}/v1/messages`, anthropicBody());
    assert.equal(anthropic.status, 529);
    assert.equal(anthropic.headers.get("retry-after-ms"), "20");
    assert.equal(((await anthropic.json()) as { error: { type: string } }).error.type, "overloaded_error");
    const openai = await post(`${server.url}/v1/chat/completions`, openaiBody());
    assert.equal(openai.status, 429);
    assert.equal(openai.headers.get("retry-after"), "1");
    assert.equal(((await openai.json()) as { error: { message: string } }).error.message, "slow down");
  });

  it("fails loudly, without inviting retries, when the script runs out", async () => {
    const server = await serve([]);
    const response = await post(`${server.url}/v1/messages`, anthropicBody());
    assert.equal(response.status, 500);
    assert.equal(response.headers.get("x-should-retry"), "false");
    assert.match(await response.text(), /no step left/);
  });

  it("takes more steps through push() and generates unique tool ids", async () => {
    const server = await serve([]);
    server.push({
      toolCalls: [
        { name: "A", input: {} },
        { name: "B", input: { x: 1 } },
      ],
    });
    const body = (await (await post(`${server.url}/v1/messages`, anthropicBody())).json()) as {
      content: { type: string; id: string }[];
      stop_reason: string;
    };
    assert.equal(body.stop_reason, "tool_use");
    const ids = body.content.filter((block) => block.type === "tool_use").map((block) => block.id);
    assert.equal(ids.length, 2);
    assert.notEqual(ids[0], ids[1]);
    assert.match(ids[0]!, /^toolu_/);
  });

  it("closes promptly while a request hangs", async () => {
    const server = await startFakeModelServer([{ hang: true }]);
    const pending = post(`${server.url}/v1/messages`, anthropicBody()).then(
      () => "answered",
      () => "dropped",
    );
    await waitFor(() => server.requests.length > 0, { interval: 5, what: "the request" });
    await server.close();
    assert.equal(await pending, "dropped");
  });
});

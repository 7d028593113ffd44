import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { type FakeStep, startFakeModelServer } from "../../src/testing/index.ts";

// The Gemini API as the fake server speaks it: the shapes Gemini CLI reads
// (AGENTS-OFFLINE.md, "Gemini CLI"; test/integration/gemini.test.ts runs the real CLI on it).

const geminiBody = (extra: Record<string, unknown> = {}) => ({
  systemInstruction: { role: "user", parts: [{ text: "sys" }] },
  contents: [
    { role: "user", parts: [{ text: "<session_context>env</session_context>" }, { text: "hello" }] },
  ],
  ...extra,
});

interface GeminiResponse {
  candidates: { content: { role: string; parts: Record<string, unknown>[] }; finishReason?: string }[];
  usageMetadata?: { promptTokenCount: number; totalTokenCount: number };
}

/** The `data:` events of an SSE body, parsed. */
function sseEvents(text: string): GeminiResponse[] {
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.startsWith("data: "))
    .map((block) => JSON.parse(block.slice(6)) as GeminiResponse);
}

describe("the fake model server's Gemini API", () => {
  const closers: (() => Promise<void>)[] = [];
  after(async () => {
    await Promise.all(closers.map((close) => close()));
  });
  async function serve(script: FakeStep[]) {
    const server = await startFakeModelServer(script);
    closers.push(server.close);
    return server;
  }
  const post = (url: string, body: unknown, headers: Record<string, string> = { "x-goog-api-key": "k" }) =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });

  it("answers generateContent with one JSON response and records the normalized request", async () => {
    const server = await serve(["hi there"]);
    const schema = { type: "object", properties: { model_choice: { type: "string" } } };
    const response = await post(
      `${server.geminiBaseURL}/v1beta/models/gemini-2.5-flash:generateContent`,
      geminiBody({ generationConfig: { responseMimeType: "application/json", responseJsonSchema: schema } }),
    );
    assert.equal(response.status, 200);
    const body = (await response.json()) as GeminiResponse;
    assert.deepEqual(body.candidates[0]!.content, { role: "model", parts: [{ text: "hi there" }] });
    assert.equal(body.candidates[0]!.finishReason, "STOP");
    assert.ok(body.usageMetadata!.promptTokenCount > 0);
    const [recorded] = server.requests;
    assert.equal(recorded!.api, "gemini");
    assert.equal(recorded!.apiKey, "k");
    assert.equal(recorded!.stream, false);
    assert.equal(recorded!.system, "sys");
    assert.equal(recorded!.userText, "<session_context>env</session_context>\nhello");
    assert.deepEqual(recorded!.jsonSchema, schema);
  });

  it("streams streamGenerateContent as data: events, the last with finishReason and usage", async () => {
    const server = await serve(["abcdefghij"]);
    const response = await post(
      `${server.url}/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`,
      geminiBody(),
    );
    assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
    const events = sseEvents(await response.text());
    assert.ok(events.length >= 2, "the text arrives in several events");
    const text = events.map((event) => String(event.candidates[0]!.content.parts[0]!.text)).join("");
    assert.equal(text, "abcdefghij");
    assert.equal(events.at(-1)!.candidates[0]!.finishReason, "STOP");
    assert.equal(events.slice(0, -1).filter((event) => event.candidates[0]!.finishReason).length, 0);
    assert.equal(server.requests[0]!.stream, true);
  });

  it("sends a scripted tool call as a whole functionCall part, and reads tool results as no user text", async () => {
    const server = await serve([
      { toolCall: { name: "memory_save", input: { type: "project", description: "d", content: "c" } } },
      "Saved.",
    ]);
    const url = `${server.url}/v1beta/models/m:streamGenerateContent?alt=sse`;
    const events = sseEvents(await (await post(url, geminiBody())).text());
    const calls = events.flatMap((event) =>
      event.candidates[0]!.content.parts.filter((part) => part.functionCall !== undefined),
    );
    assert.equal(calls.length, 1);
    const call = calls[0]!.functionCall as { id: string; name: string; args: unknown };
    assert.equal(call.name, "memory_save");
    assert.deepEqual(call.args, { type: "project", description: "d", content: "c" });
    assert.match(call.id, /^call_fake_/);
    assert.equal(events.at(-1)!.candidates[0]!.finishReason, "STOP");

    const withResult = geminiBody({
      contents: [
        { role: "user", parts: [{ text: "save it" }] },
        { role: "model", parts: [calls[0]] },
        {
          role: "user",
          parts: [{ functionResponse: { id: call.id, name: call.name, response: { ok: 1 } } }],
        },
      ],
    });
    await post(url, withResult);
    assert.equal(server.requests[1]!.userText, "save it", "the last user text, not the tool result");
  });

  it("takes the key from ?key= too, and refuses a request with none", async () => {
    const server = await serve(["one"]);
    const url = `${server.url}/v1beta/models/m:generateContent`;
    const refused = await post(url, geminiBody(), {});
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { error: { status: string } }).error.status, "UNAUTHENTICATED");
    assert.equal((await post(`${url}?key=abc`, geminiBody(), {})).status, 200);
    assert.equal(server.requests[1]!.apiKey, "abc");
  });

  it("sends scripted errors in the Google RPC error shape", async () => {
    const server = await serve([{ error: 429, retryAfter: 1, message: "quota" }]);
    const response = await post(`${server.url}/v1beta/models/m:generateContent`, geminiBody());
    assert.equal(response.status, 429);
    assert.equal(response.headers.get("retry-after"), "1");
    assert.deepEqual(await response.json(), {
      error: { code: 429, message: "quota", status: "RESOURCE_EXHAUSTED" },
    });
  });
});

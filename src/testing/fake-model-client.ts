import { MemdirError } from "../errors.ts";
import type { ModelClient, ModelRequest, ModelResponse, ModelStreamEvent } from "../model/client.ts";
import { withJsonRepair } from "../model/json-repair.ts";
import { type ContentBlock, type Message, messageText } from "../types.ts";
import {
  estimateTokens,
  type FakeRequest,
  type FakeStep,
  type FakeStepFunction,
  resolveStep,
  splitForStream,
} from "./fake-steps.ts";

/** A scripted {@link ModelClient} made by {@link createFakeModelClient}. */
export interface FakeModelClient extends ModelClient {
  /** Every request the client was given, in order (a JSON repair's second request included). */
  readonly requests: ModelRequest[];
  /** The same requests as the fake model server records them, for step functions and assertions. */
  readonly fakeRequests: FakeRequest[];
  /** Appends steps to the script. */
  push(...steps: FakeStep[]): void;
  /** Steps not yet used. */
  readonly remaining: number;
}

/**
 * A model client that answers in this process from the same script as the fake model server
 * ({@link FakeStep}: text, tool calls, JSON, malformed JSON, errors, hangs, step functions), and
 * records each request. For unit tests of code that takes a `ModelClient`; the fake server is for
 * what goes over the wire (headers, the SDKs' request shapes, retries, child processes).
 *
 * Like the real clients it retries a malformed JSON-schema reply once (`model/json-repair.ts`).
 * A scripted `{ error }` rejects with `MemdirError("model")` naming the status, as the real clients
 * do; `{ hang: true }` waits until the request's `signal` aborts (`MemdirError("aborted")`). When the
 * script runs out, a request rejects, so a test that makes one call too many fails loudly.
 *
 * @example
 * import { createFakeModelClient } from "memdir/testing";
 * const client = createFakeModelClient([{ json: { selected_memories: ["feedback-testing.md"] } }]);
 * const reply = await client.complete({ messages: [{ id: "1", role: "user", content: "hi" }], maxTokens: 100 });
 * client.requests[0].messages; // what the code under test sent
 */
export function createFakeModelClient(script: FakeStep[] | FakeStepFunction = []): FakeModelClient {
  const queue: FakeStep[] = Array.isArray(script) ? [...script] : [];
  const every = Array.isArray(script) ? null : script;
  const requests: ModelRequest[] = [];
  const fakeRequests: FakeRequest[] = [];
  let idCounter = 0;
  const nextId = () => `toolu_fake_${String(++idCounter).padStart(4, "0")}`;

  async function answer(request: ModelRequest, stream: boolean): Promise<ModelResponse> {
    requests.push(request);
    const fake = fakeRequestOf(request, stream);
    fakeRequests.push(fake);
    const step = every ?? queue.shift();
    if (step === undefined)
      throw new MemdirError(
        "model",
        `model: fake: the script has no step left for request ${requests.length}`,
      );
    const reply = await resolveStep(step, fake, nextId);
    if (reply.kind === "hang") return hang(request.signal);
    if (reply.kind === "error")
      throw new MemdirError("model", `model: fake: HTTP ${reply.status}: ${reply.message}`);
    const content: ContentBlock[] = [];
    if (reply.text !== "") content.push({ type: "text", text: reply.text });
    for (const call of reply.toolCalls)
      content.push({ type: "tool_use", id: call.id, name: call.name, input: call.input });
    const inputText = [request.system ?? "", ...request.messages.map(messageText)].join("\n");
    return {
      content,
      stopReason: reply.toolCalls.length > 0 ? "tool_use" : reply.stopReason,
      usage: { inputTokens: estimateTokens(inputText), outputTokens: estimateTokens(reply.text) },
      model: request.model ?? "fake-model",
    };
  }

  const raw: ModelClient = {
    name: "fake",
    complete: (request) => answer(request, false),
    async *stream(request): AsyncIterable<ModelStreamEvent> {
      const response = await answer(request, true);
      for (const block of response.content) {
        if (block.type === "text")
          for (const text of splitForStream(block.text, 8)) yield { type: "text_delta", text };
        else if (block.type === "tool_use") yield { type: "tool_use", block };
      }
      yield { type: "done", response };
    },
  };
  const repaired = withJsonRepair(raw);
  return {
    name: raw.name,
    complete: repaired.complete.bind(repaired),
    stream: raw.stream!.bind(raw),
    requests,
    fakeRequests,
    push: (...steps) => {
      queue.push(...steps);
    },
    get remaining() {
      return queue.length;
    },
  };
}

/** The request as the fake server would record it, so one step function serves both doubles. */
function fakeRequestOf(request: ModelRequest, stream: boolean): FakeRequest {
  const lastUser = request.messages.findLast((message: Message) => message.role === "user");
  return {
    api: "client",
    method: "CALL",
    path: "",
    headers: {},
    body: { ...request, signal: undefined } as unknown as Record<string, unknown>,
    apiKey: null,
    stream,
    system: request.system ?? "",
    userText: lastUser ? messageText(lastUser) : "",
    jsonSchema: request.jsonSchema?.schema ?? null,
  };
}

function hang(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    const abort = () => reject(new MemdirError("aborted", "model: fake: request aborted"));
    if (signal?.aborted) abort();
    else signal?.addEventListener("abort", abort, { once: true });
  });
}

/**
 * The script language of the fake model server: one step answers one request, in order.
 * Kept as plain object literals so a test reads like the conversation it scripts.
 */

/** One tool call the fake model makes. `id` is generated when left out. */
export interface FakeToolCall {
  name: string;
  input: unknown;
  id?: string;
}

/**
 * One scripted reply. Whether it goes out as JSON or as a stream (SSE / `data:` chunks) is decided
 * by the request (`stream: true`), so the same script serves `complete` and `stream`.
 *
 * - `"hello"` or `{ text: "hello" }` — an assistant text reply (`stopReason` defaults to `end_turn`).
 * - `{ toolCall: { name, input } }` / `{ toolCalls: [...] , text? }` — tool use; ids are generated
 *   (`toolu_fake_N` / `call_fake_N`); OpenAI streams split the arguments across chunks.
 * - `{ json: value }` — the reply text is `JSON.stringify(value)` (structured output).
 * - `{ malformedJson: true }` or `{ malformedJson: "{oops" }` — reply text that is not valid JSON.
 * - `{ error: 529, retryAfterMs: 5 }` — an HTTP error in the provider's error shape, with optional
 *   `retry-after-ms` / `retry-after` headers and a `message`.
 * - `{ hang: true }` — never answers; the response ends only when the client aborts or the server closes.
 * - `(request) => step` — decides at request time (e.g. picks files named in `request.userText`).
 *
 * @example
 * const server = await startFakeModelServer([
 *   { toolCall: { name: "Read", input: { file_path: "/tmp/x.md" } } },
 *   "Done: I read the file.",
 * ]);
 */
export type FakeStep =
  | string
  | { text: string; stopReason?: "end_turn" | "max_tokens" }
  | { toolCall: FakeToolCall; text?: string }
  | { toolCalls: FakeToolCall[]; text?: string }
  | { json: unknown }
  | { malformedJson: true | string }
  | { error: number; message?: string; retryAfterMs?: number; retryAfter?: number }
  | { hang: true }
  | FakeStepFunction;

/** A step decided when the request arrives. */
export type FakeStepFunction = (request: FakeRequest) => FakeStep | Promise<FakeStep>;

/** A recorded request, normalized across both wire formats so step functions and assertions stay simple. */
export interface FakeRequest {
  /** Which wire format the request used (`openai-responses`: `POST /v1/responses`); `client` for the in-process double (`createFakeModelClient`). */
  api: "anthropic" | "openai" | "openai-responses" | "gemini" | "client";
  method: string;
  /** URL path, e.g. `/v1/messages`. */
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The parsed JSON body (`null` when it was not JSON). */
  body: Record<string, unknown> | null;
  /** The key from `x-api-key`, `x-goog-api-key`, `?key=` or `Authorization: Bearer …`, or null. */
  apiKey: string | null;
  /** True when the client asked for a streamed reply (Gemini: `:streamGenerateContent`). */
  stream: boolean;
  /** The system prompt text (Anthropic `system`; OpenAI system/developer messages joined; Responses `instructions` first; Gemini `systemInstruction`). */
  system: string;
  /** Text of the last user message (string content or its text parts joined). */
  userText: string;
  /** The JSON schema the client asked the reply to follow, or null. */
  jsonSchema: Record<string, unknown> | null;
}

/** A step reduced to what the wire writers need. */
export type ResolvedReply =
  | {
      kind: "message";
      text: string;
      toolCalls: Required<FakeToolCall>[];
      stopReason: "end_turn" | "max_tokens";
    }
  | { kind: "error"; status: number; message: string; retryAfterMs?: number; retryAfter?: number }
  | { kind: "hang" };

/**
 * Turns a step into a reply. `nextId` generates tool-use ids so every call in a server run is unique.
 */
export async function resolveStep(
  step: FakeStep,
  request: FakeRequest,
  nextId: () => string,
): Promise<ResolvedReply> {
  let current = step;
  // A function may return another function; unwrap a few levels, never forever.
  for (let depth = 0; typeof current === "function" && depth < 8; depth++) current = await current(request);
  if (typeof current === "function")
    throw new Error("fake model server: step function kept returning functions");
  if (typeof current === "string") return message(current, [], "end_turn");
  if ("hang" in current) return { kind: "hang" };
  if ("error" in current) {
    return {
      kind: "error",
      status: current.error,
      message: current.message ?? `fake model server: scripted ${current.error}`,
      retryAfterMs: current.retryAfterMs,
      retryAfter: current.retryAfter,
    };
  }
  if ("json" in current) return message(JSON.stringify(current.json), [], "end_turn");
  if ("malformedJson" in current) {
    const text =
      current.malformedJson === true ? '{"selected_memories": ["unterminated' : current.malformedJson;
    return message(text, [], "end_turn");
  }
  if ("toolCall" in current || "toolCalls" in current) {
    const calls = "toolCall" in current ? [current.toolCall] : current.toolCalls;
    const withIds = calls.map((call) => ({
      name: call.name,
      input: call.input ?? {},
      id: call.id ?? nextId(),
    }));
    return message(current.text ?? "", withIds, "end_turn");
  }
  return message(current.text, [], current.stopReason ?? "end_turn");
}

function message(
  text: string,
  toolCalls: Required<FakeToolCall>[],
  stopReason: "end_turn" | "max_tokens",
): ResolvedReply {
  return { kind: "message", text, toolCalls, stopReason };
}

/** Splits text into small pieces (by code point) so streams carry several deltas. */
export function splitForStream(text: string, size: number): string[] {
  const points = Array.from(text);
  const pieces: string[] = [];
  for (let i = 0; i < points.length; i += size) pieces.push(points.slice(i, i + size).join(""));
  return pieces;
}

/** A rough token count (4 characters a token) so usage fields are plausible, never zero for real input. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

import type { ServerResponse } from "node:http";
import { estimateTokens, type ResolvedReply, splitForStream } from "./fake-steps.ts";

// The OpenAI chat-completions wire format, as the fake server speaks it (POST /v1/chat/completions).

type Json = Record<string, unknown>;

function messagesOf(body: Json | null): Json[] {
  return Array.isArray(body?.messages) ? (body.messages as Json[]) : [];
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) =>
      part && typeof part === "object" && (part as Json).type === "text" ? String((part as Json).text) : "",
    )
    .join("\n");
}

/** System text of a chat request: its system and developer messages joined. */
export function openaiSystem(body: Json | null): string {
  return messagesOf(body)
    .filter((m) => m.role === "system" || m.role === "developer")
    .map((m) => contentText(m.content))
    .join("\n");
}

/** Text of the last user message of a chat request. */
export function openaiUserText(body: Json | null): string {
  const last = [...messagesOf(body)].reverse().find((m) => m.role === "user");
  return last ? contentText(last.content) : "";
}

/** The schema of `response_format: {type: "json_schema"}`, or null. */
export function openaiJsonSchema(body: Json | null): Json | null {
  const format = body?.response_format as Json | undefined;
  if (format?.type !== "json_schema") return null;
  const schema = (format.json_schema as Json | undefined)?.schema;
  return schema && typeof schema === "object" ? (schema as Json) : null;
}

function finishReason(reply: Extract<ResolvedReply, { kind: "message" }>): string {
  if (reply.toolCalls.length > 0) return "tool_calls";
  return reply.stopReason === "max_tokens" ? "length" : "stop";
}

/** Writes a scripted reply as one chat completion or as `data:` chunks ending in `[DONE]`. */
export function writeOpenAIMessage(
  response: ServerResponse,
  reply: Extract<ResolvedReply, { kind: "message" }>,
  request: { body: Json | null; stream: boolean; messageId: string },
): void {
  const model = typeof request.body?.model === "string" ? request.body.model : "fake-model";
  const created = Math.floor(Date.now() / 1000);
  const promptTokens = estimateTokens(JSON.stringify(request.body ?? {}));
  const completionTokens = estimateTokens(reply.text + JSON.stringify(reply.toolCalls));
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
  const toolCalls = reply.toolCalls.map((call) => ({
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: JSON.stringify(call.input) },
  }));
  if (!request.stream) {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(
      JSON.stringify({
        id: request.messageId,
        object: "chat.completion",
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: reply.text === "" && toolCalls.length > 0 ? null : reply.text,
              refusal: null,
              ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: finishReason(reply),
            logprobs: null,
          },
        ],
        usage,
      }),
    );
    return;
  }
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const chunk = (delta: Json, finish: string | null = null) =>
    response.write(
      `data: ${JSON.stringify({
        id: request.messageId,
        object: "chat.completion.chunk",
        created,
        model,
        choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
      })}\n\n`,
    );
  chunk({ role: "assistant", content: "" });
  for (const piece of splitForStream(reply.text, 4)) chunk({ content: piece });
  toolCalls.forEach((call, index) => {
    chunk({
      tool_calls: [
        { index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } },
      ],
    });
    // Real servers split arguments arbitrarily, even inside strings and escapes.
    for (const piece of splitForStream(call.function.arguments, 5)) {
      chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  });
  chunk({}, finishReason(reply));
  const streamOptions = request.body?.stream_options as Json | undefined;
  if (streamOptions?.include_usage === true) {
    response.write(
      `data: ${JSON.stringify({ id: request.messageId, object: "chat.completion.chunk", created, model, choices: [], usage })}\n\n`,
    );
  }
  response.write("data: [DONE]\n\n");
  response.end();
}

/** The OpenAI error body for a status. */
export function openaiErrorBody(status: number, message: string): Json {
  const type =
    status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error";
  return { error: { message, type, param: null, code: status === 429 ? "rate_limit_exceeded" : null } };
}

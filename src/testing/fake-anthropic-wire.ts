import type { ServerResponse } from "node:http";
import { estimateTokens, type ResolvedReply, splitForStream } from "./fake-steps.ts";

// The Anthropic Messages wire format, as the fake server speaks it (POST /v1/messages).

type Json = Record<string, unknown>;

/** System text of an Anthropic request body (`system` string or text blocks). */
export function anthropicSystem(body: Json | null): string {
  const system = body?.system;
  if (typeof system === "string") return system;
  if (Array.isArray(system)) return system.map((block) => textOf(block)).join("\n");
  return "";
}

/** Text of the last user message of an Anthropic request body. */
export function anthropicUserText(body: Json | null): string {
  const messages = Array.isArray(body?.messages) ? (body.messages as Json[]) : [];
  const last = [...messages].reverse().find((m) => m.role === "user");
  if (!last) return "";
  if (typeof last.content === "string") return last.content;
  return Array.isArray(last.content) ? last.content.map((block) => textOf(block)).join("\n") : "";
}

/** The JSON schema asked for through `output_config.format`, or null. */
export function anthropicJsonSchema(body: Json | null): Json | null {
  const outputConfig = body?.output_config as Json | undefined;
  const format = outputConfig?.format as Json | undefined;
  return format?.type === "json_schema" && format.schema && typeof format.schema === "object"
    ? (format.schema as Json)
    : null;
}

function textOf(block: unknown): string {
  return block && typeof block === "object" && (block as Json).type === "text"
    ? String((block as Json).text)
    : "";
}

function contentBlocks(reply: Extract<ResolvedReply, { kind: "message" }>): Json[] {
  const blocks: Json[] = [];
  if (reply.text !== "" || reply.toolCalls.length === 0) blocks.push({ type: "text", text: reply.text });
  for (const call of reply.toolCalls)
    blocks.push({ type: "tool_use", id: call.id, name: call.name, input: call.input });
  return blocks;
}

function stopReason(reply: Extract<ResolvedReply, { kind: "message" }>): string {
  return reply.toolCalls.length > 0 ? "tool_use" : reply.stopReason;
}

/** Writes a scripted message reply, as one JSON body or as SSE events. */
export function writeAnthropicMessage(
  response: ServerResponse,
  reply: Extract<ResolvedReply, { kind: "message" }>,
  request: { body: Json | null; stream: boolean; messageId: string },
): void {
  const model = typeof request.body?.model === "string" ? request.body.model : "fake-model";
  const inputTokens = estimateTokens(JSON.stringify(request.body ?? {}));
  const blocks = contentBlocks(reply);
  const outputTokens = estimateTokens(JSON.stringify(blocks));
  if (!request.stream) {
    response.writeHead(200, { "content-type": "application/json", "request-id": request.messageId });
    response.end(
      JSON.stringify({
        id: request.messageId,
        type: "message",
        role: "assistant",
        model,
        content: blocks,
        stop_reason: stopReason(reply),
        stop_sequence: null,
        usage: { input_tokens: inputTokens, output_tokens: outputTokens },
      }),
    );
    return;
  }
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (event: string, data: Json) =>
    response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  send("message_start", {
    type: "message_start",
    message: {
      id: request.messageId,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: inputTokens, output_tokens: 1 },
    },
  });
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      send("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "" },
      });
      for (const piece of splitForStream(String(block.text), 4)) {
        send("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "text_delta", text: piece },
        });
      }
    } else {
      send("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      });
      for (const piece of splitForStream(JSON.stringify(block.input), 5)) {
        send("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: piece },
        });
      }
    }
    send("content_block_stop", { type: "content_block_stop", index });
  });
  send("message_delta", {
    type: "message_delta",
    delta: { stop_reason: stopReason(reply), stop_sequence: null },
    usage: { output_tokens: outputTokens },
  });
  send("message_stop", { type: "message_stop" });
  response.end();
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

/** The Anthropic error body for a status. */
export function anthropicErrorBody(status: number, message: string): Json {
  return { type: "error", error: { type: ERROR_TYPES[status] ?? "api_error", message } };
}

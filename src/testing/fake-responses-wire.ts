import type { ServerResponse } from "node:http";
import { estimateTokens, type ResolvedReply, splitForStream } from "./fake-steps.ts";

// The OpenAI Responses API wire format, as the fake server speaks it (POST /v1/responses): what
// Codex CLI speaks, and the only API it speaks. A stream is the event sequence Codex reads
// (codex-rs/codex-api/src/sse/responses.rs): response.created, then per output item
// output_item.added … output_item.done, and response.completed with the usage last.

type Json = Record<string, unknown>;
type Message = Extract<ResolvedReply, { kind: "message" }>;

function inputItems(body: Json | null): Json[] {
  return Array.isArray(body?.input) ? (body.input as Json[]) : [];
}

/** A message's text: a string, or its `input_text` / `output_text` / `text` parts joined. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => {
      const block = part as Json | null;
      return block && typeof block.text === "string" && /^(input_|output_)?text$/.test(String(block.type))
        ? block.text
        : "";
    })
    .filter((text) => text !== "")
    .join("\n");
}

/** System text of a Responses request: `instructions`, then its system and developer messages. */
export function responsesSystem(body: Json | null): string {
  const instructions = typeof body?.instructions === "string" ? [body.instructions] : [];
  const messages = inputItems(body)
    .filter((item) => item.role === "system" || item.role === "developer")
    .map((item) => contentText(item.content));
  return [...instructions, ...messages].join("\n");
}

/** Text of the last user message of a Responses request (`input` as a string counts as one). */
export function responsesUserText(body: Json | null): string {
  if (typeof body?.input === "string") return body.input;
  const last = [...inputItems(body)].reverse().find((item) => item.role === "user");
  return last ? contentText(last.content) : "";
}

/** The schema of `text.format: {type: "json_schema"}`, or null. */
export function responsesJsonSchema(body: Json | null): Json | null {
  const format = (body?.text as Json | undefined)?.format as Json | undefined;
  if (format?.type !== "json_schema") return null;
  return format.schema && typeof format.schema === "object" ? (format.schema as Json) : null;
}

/** The normalized fields of a recorded Responses request. */
export function requestFields(body: Json | null): {
  system: string;
  userText: string;
  jsonSchema: Json | null;
} {
  return {
    system: responsesSystem(body),
    userText: responsesUserText(body),
    jsonSchema: responsesJsonSchema(body),
  };
}

/**
 * Where a scripted tool call goes. A Responses client may group tools in a `namespace` tool
 * (Codex puts each MCP server's tools in one: `{type: "namespace", name: "mcp__memdir", tools}`),
 * and a call of one names both: `{namespace: "mcp__memdir", name: "memory_save"}`. A script names
 * the tool as the other wires do (`mcp__memdir__memory_save`), or by its bare name when one
 * namespace alone has it; a name no namespace claims goes out as it is.
 */
export function namespacedCall(body: Json | null, name: string): { namespace?: string; name: string } {
  const tools = Array.isArray(body?.tools) ? (body.tools as Json[]) : [];
  const namespaces = tools.filter((tool) => tool.type === "namespace" && typeof tool.name === "string");
  const innerNames = (namespace: Json) =>
    (Array.isArray(namespace.tools) ? (namespace.tools as Json[]) : []).map((tool) => tool.name);
  for (const namespace of namespaces) {
    const prefix = `${String(namespace.name)}__`;
    const inner = name.startsWith(prefix) ? name.slice(prefix.length) : null;
    if (inner !== null && innerNames(namespace).includes(inner))
      return { namespace: String(namespace.name), name: inner };
  }
  if (tools.some((tool) => tool.type === "function" && tool.name === name)) return { name };
  const owners = namespaces.filter((namespace) => innerNames(namespace).includes(name));
  return owners.length === 1 ? { namespace: String(owners[0]!.name), name } : { name };
}

/** The reply's output items: the message (when it has text), then one function call per tool call. */
function outputItems(reply: Message, body: Json | null, responseId: string): Json[] {
  const items: Json[] = [];
  if (reply.text !== "" || reply.toolCalls.length === 0) {
    items.push({
      type: "message",
      id: `msg_${responseId}`,
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: reply.text, annotations: [] }],
    });
  }
  for (const call of reply.toolCalls) {
    items.push({
      type: "function_call",
      id: `fc_${call.id}`,
      call_id: call.id,
      ...namespacedCall(body, call.name),
      arguments: JSON.stringify(call.input),
      status: "completed",
    });
  }
  return items;
}

/**
 * Writes a scripted reply as one response object, or as the SSE events of a streamed one
 * (`event: <type>` and `data: <json>` per event, each with its `sequence_number`).
 */
export function writeResponsesMessage(
  response: ServerResponse,
  reply: Message,
  request: { body: Json | null; stream: boolean; messageId: string },
): void {
  const model = typeof request.body?.model === "string" ? request.body.model : "fake-model";
  const inputTokens = estimateTokens(JSON.stringify(request.body ?? {}));
  const outputTokens = estimateTokens(reply.text + JSON.stringify(reply.toolCalls));
  const usage = {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + outputTokens,
  };
  const incomplete = reply.stopReason === "max_tokens";
  const items = outputItems(reply, request.body, request.messageId);
  const responseObject = (status: string, output: Json[], withUsage: boolean): Json => ({
    id: request.messageId,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    model,
    output,
    incomplete_details: status === "incomplete" ? { reason: "max_output_tokens" } : null,
    error: null,
    usage: withUsage ? usage : null,
  });
  const finalStatus = incomplete ? "incomplete" : "completed";
  if (!request.stream) {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(responseObject(finalStatus, items, true)));
    return;
  }
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  let sequence = 0;
  const event = (type: string, data: Json) =>
    response.write(
      `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`,
    );
  event("response.created", { response: responseObject("in_progress", [], false) });
  event("response.in_progress", { response: responseObject("in_progress", [], false) });
  items.forEach((item, outputIndex) => {
    const itemId = String(item.id);
    if (item.type === "message") {
      const text = reply.text;
      event("response.output_item.added", {
        output_index: outputIndex,
        item: { ...item, status: "in_progress", content: [] },
      });
      const part = { type: "output_text", text: "", annotations: [] };
      event("response.content_part.added", {
        item_id: itemId,
        output_index: outputIndex,
        content_index: 0,
        part,
      });
      for (const delta of splitForStream(text, 4))
        event("response.output_text.delta", {
          item_id: itemId,
          output_index: outputIndex,
          content_index: 0,
          delta,
        });
      event("response.output_text.done", {
        item_id: itemId,
        output_index: outputIndex,
        content_index: 0,
        text,
      });
      event("response.content_part.done", {
        item_id: itemId,
        output_index: outputIndex,
        content_index: 0,
        part: { ...part, text },
      });
    } else {
      const args = String(item.arguments);
      event("response.output_item.added", {
        output_index: outputIndex,
        item: { ...item, arguments: "", status: "in_progress" },
      });
      // Real servers split arguments arbitrarily, even inside strings and escapes.
      for (const delta of splitForStream(args, 5))
        event("response.function_call_arguments.delta", {
          item_id: itemId,
          output_index: outputIndex,
          delta,
        });
      event("response.function_call_arguments.done", {
        item_id: itemId,
        output_index: outputIndex,
        arguments: args,
      });
    }
    event("response.output_item.done", { output_index: outputIndex, item });
  });
  event(incomplete ? "response.incomplete" : "response.completed", {
    response: responseObject(finalStatus, items, true),
  });
  response.end();
}

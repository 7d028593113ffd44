import type { ServerResponse } from "node:http";
import { estimateTokens, type ResolvedReply, splitForStream } from "./fake-steps.ts";

// The Gemini API wire format, as the fake server speaks it: `POST /v1beta/models/<model>:generateContent`
// (one JSON response) and `…:streamGenerateContent?alt=sse` (`data:` events, each a whole
// GenerateContentResponse). Gemini CLI sends both (AGENTS-OFFLINE.md, "Gemini CLI").

type Json = Record<string, unknown>;

/** What a Gemini API path asks for, or null when it is not one. */
export interface GeminiRoute {
  /** The model named in the path (`gemini-2.5-pro`). */
  model: string;
  /** `streamGenerateContent` answers as SSE, `generateContent` as one JSON body. */
  stream: boolean;
}

const GEMINI_PATH = /\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

/**
 * The Gemini API route of `pathname` (`/v1beta/models/m:generateContent`), or null.
 *
 * @example
 * geminiRoute("/v1beta/models/gemini-2.5-flash:streamGenerateContent") // { model: "gemini-2.5-flash", stream: true }
 */
export function geminiRoute(pathname: string): GeminiRoute | null {
  const match = GEMINI_PATH.exec(pathname);
  if (!match) return null;
  return { model: decodeURIComponent(match[1]!), stream: match[2] === "streamGenerateContent" };
}

function partsOf(content: unknown): Json[] {
  if (typeof content === "string") return [{ text: content }];
  if (!content || typeof content !== "object") return [];
  const parts = (content as Json).parts;
  return Array.isArray(parts) ? (parts as Json[]) : [];
}

function textOfParts(parts: Json[]): string {
  return parts
    .filter((part) => typeof part?.text === "string" && part.thought !== true)
    .map((part) => String(part.text))
    .join("\n");
}

/** System text of a Gemini request: `systemInstruction` (a string or a content's text parts). */
export function geminiSystem(body: Json | null): string {
  return textOfParts(partsOf(body?.systemInstruction ?? body?.system_instruction));
}

/**
 * Text of the last user content that holds text. Gemini sends tool results as `functionResponse`
 * parts in user-role contents; those are not what the user said, so they are passed over.
 */
export function geminiUserText(body: Json | null): string {
  const contents = Array.isArray(body?.contents) ? (body.contents as Json[]) : [];
  for (const content of [...contents].reverse()) {
    if (content.role !== undefined && content.role !== "user") continue;
    const text = textOfParts(partsOf(content));
    if (text !== "") return text;
  }
  return "";
}

/** The schema of `generationConfig.responseJsonSchema` (or the older `responseSchema`), or null. */
export function geminiJsonSchema(body: Json | null): Json | null {
  const config = (body?.generationConfig ?? body?.generation_config) as Json | undefined;
  const schema = config?.responseJsonSchema ?? config?.responseSchema;
  return schema && typeof schema === "object" ? (schema as Json) : null;
}

function finishReason(reply: Extract<ResolvedReply, { kind: "message" }>): string {
  return reply.stopReason === "max_tokens" ? "MAX_TOKENS" : "STOP";
}

function usageMetadata(promptTokens: number, candidatesTokens: number): Json {
  return {
    promptTokenCount: promptTokens,
    candidatesTokenCount: candidatesTokens,
    totalTokenCount: promptTokens + candidatesTokens,
  };
}

/**
 * Writes a scripted reply as one GenerateContentResponse or as SSE events. A stream carries the
 * text in several events, then each tool call whole (the Gemini API never splits a `functionCall`'s
 * arguments), and the last event has `finishReason` and the usage.
 */
export function writeGeminiMessage(
  response: ServerResponse,
  reply: Extract<ResolvedReply, { kind: "message" }>,
  request: { body: Json | null; stream: boolean; messageId: string; model: string },
): void {
  const promptTokens = estimateTokens(JSON.stringify(request.body ?? {}));
  const candidatesTokens = estimateTokens(reply.text + JSON.stringify(reply.toolCalls));
  const callParts: Json[] = reply.toolCalls.map((call) => ({
    functionCall: { id: call.id, name: call.name, args: call.input ?? {} },
  }));
  const event = (parts: Json[], last: boolean): Json => ({
    candidates: [
      {
        content: { role: "model", parts },
        ...(last ? { finishReason: finishReason(reply) } : {}),
        index: 0,
      },
    ],
    ...(last
      ? { usageMetadata: usageMetadata(promptTokens, candidatesTokens) }
      : { usageMetadata: usageMetadata(promptTokens, 0) }),
    modelVersion: request.model,
    responseId: request.messageId,
  });
  if (!request.stream) {
    const parts = [
      ...(reply.text === "" && callParts.length > 0 ? [] : [{ text: reply.text }]),
      ...callParts,
    ];
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(event(parts, true)));
    return;
  }
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const pieces = splitForStream(reply.text, 4);
  const events: Json[][] = pieces.map((piece) => [{ text: piece }]);
  for (const part of callParts) events.push([part]);
  if (events.length === 0) events.push([{ text: "" }]);
  events.forEach((parts, index) => {
    response.write(`data: ${JSON.stringify(event(parts, index === events.length - 1))}\r\n\r\n`);
  });
  response.end();
}

const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** The Gemini API (Google RPC) error body for a status. */
export function geminiErrorBody(status: number, message: string): Json {
  return { error: { code: status, message, status: STATUS_NAMES[status] ?? "UNKNOWN" } };
}

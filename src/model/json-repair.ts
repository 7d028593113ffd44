import type { Message, TextBlock } from "../types.ts";
import type { ModelClient, ModelRequest, ModelResponse } from "./client.ts";

/** The text of a reply: its text blocks joined. */
export function responseText(response: ModelResponse): string {
  return response.content
    .filter((block): block is TextBlock => block.type === "text")
    .map((block) => block.text)
    .join("");
}

/**
 * Parses a JSON reply. Tolerates what local models add around JSON: whitespace and a
 * ```json fence. Returns the value or an error message.
 */
export function parseJsonReply(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  let body = text.trim();
  const fenced = /^```(?:json)?\s*\n?([\s\S]*?)\n?```$/i.exec(body);
  if (fenced) body = fenced[1]!.trim();
  if (body === "") return { ok: false, error: "the reply was empty, expected a JSON object" };
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch (error) {
    return { ok: false, error: `the reply is not valid JSON (${(error as Error).message})` };
  }
}

/** Why a JSON reply is unusable (not JSON, or rejected by the request's validator), or null. */
export function jsonReplyProblem(request: ModelRequest, response: ModelResponse): string | null {
  if (!request.jsonSchema) return null;
  const parsed = parseJsonReply(responseText(response));
  if (!parsed.ok) return parsed.error;
  return request.jsonSchema.validate?.(parsed.value) ?? null;
}

/**
 * Wraps a client so a JSON-schema request whose reply is malformed gets ONE repair attempt: the bad
 * reply and what is wrong with it go back to the model, which answers again. The second reply is
 * returned as it is; the caller validates it (local servers without schema support need this; the
 * hosted APIs almost never do).
 */
export function withJsonRepair(client: ModelClient): ModelClient {
  const wrapped: ModelClient = {
    name: client.name,
    async complete(request) {
      const first = await client.complete(request);
      const problem = jsonReplyProblem(request, first);
      if (problem === null) return first;
      return client.complete({
        ...request,
        messages: [...request.messages, ...repairMessages(first, problem)],
      });
    },
  };
  if (client.stream) wrapped.stream = client.stream.bind(client);
  return wrapped;
}

function repairMessages(bad: ModelResponse, problem: string): Message[] {
  return [
    { id: "json-repair-reply", role: "assistant", content: responseText(bad) || "(empty reply)" },
    {
      id: "json-repair-request",
      role: "user",
      content: `That reply cannot be used: ${problem}. Reply again with only the corrected JSON value that matches the schema, no other text.`,
    },
  ];
}

// An in-process ModelClient that answers from a script: for loop tests that need no HTTP.
import type { ModelClient, ModelRequest, ModelResponse } from "../../src/model/client.ts";
import type { ContentBlock } from "../../src/types.ts";

export type ScriptedReply =
  | string
  | { toolCalls: { name: string; input: unknown }[] }
  | ((request: ModelRequest, index: number) => ScriptedReply | Promise<ScriptedReply>);

/** A client that records each request (a deep copy) and answers with the next reply. */
export function scriptedClient(replies: ScriptedReply[]): ModelClient & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  let toolId = 0;
  const client = {
    name: "scripted",
    requests,
    async complete(request: ModelRequest): Promise<ModelResponse> {
      const index = requests.length;
      requests.push(structuredClone({ ...request, signal: undefined }));
      let reply = replies[Math.min(index, replies.length - 1)];
      while (typeof reply === "function") reply = await reply(request, index);
      request.signal?.throwIfAborted();
      if (typeof reply === "string")
        return {
          content: [{ type: "text", text: reply }],
          stopReason: "end_turn",
          usage: { inputTokens: 10, outputTokens: 5 },
        };
      const content: ContentBlock[] = reply.toolCalls.map((call) => ({
        type: "tool_use",
        id: `tool_${++toolId}`,
        name: call.name,
        input: call.input,
      }));
      return { content, stopReason: "tool_use", usage: { inputTokens: 10, outputTokens: 5 } };
    },
  };
  return client;
}

/** Text of every message in a request, for "does this request carry X" checks. */
export function requestText(request: ModelRequest): string {
  return request.messages
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n");
}

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type MemoryToolSpec, runSafely } from "../agent/memory-tools/spec.ts";
import type { ToolContext } from "../agent/tools/spec.ts";
import { CLINE_MCP_CLIENT } from "../hosts/cline/mcp-client.ts";

/**
 * Registers memory tools on an MCP server: the same {@link MemoryToolSpec} objects the agent
 * loop uses (docs/design.md#tools-defined-once), with their zod input and output schemas, annotations, and
 * results as `structuredContent` plus the text a model reads. An expected failure (a refused
 * path, a secret, a missing memory) comes back as an `isError` result the model can read.
 * `contextFor` gives each call a fresh tool context, so one call's reads never hide memories
 * from the next call's recall.
 *
 * The text content is the tool's compact human rendering (each recalled memory: title, file,
 * body), not `structuredContent` again as JSON: hosts such as Cline hand both to the model, and
 * a JSON copy made every recalled memory reach it twice (docs/design.md#mcp-server).
 * A successful write announces `notifications/resources/list_changed`: the memory files are
 * the server's resources (docs/design.md#mcp-server).
 */
/**
 * MCP clients that put `structuredContent` in front of the model beside the text block: Cline
 * (src/hosts/cline/mcp-client.ts) sends both in one tool message. For them a read-only tool's
 * text only points at the structured result, so each recalled memory reaches the model once; a
 * write's short confirmation stays. Other hosts read the text alone (Claude Code) or the
 * structured JSON alone (Qwen Code), so they keep both whole.
 */
const SENDS_STRUCTURED_TO_MODEL = CLINE_MCP_CLIENT;

export function registerMemoryTools(
  server: McpServer,
  tools: readonly MemoryToolSpec[],
  contextFor: (signal: AbortSignal) => ToolContext,
): void {
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        annotations: { title: tool.title, ...tool.annotations },
      },
      async (input: unknown, extra: { signal: AbortSignal }): Promise<CallToolResult> => {
        const outcome = await runSafely(tool, input, contextFor(extra.signal));
        if (!outcome.ok) return { content: [{ type: "text", text: outcome.message }], isError: true };
        // Sent before the result, so a client that refreshes on it already sees the change.
        if (!tool.annotations.readOnlyHint && server.isConnected())
          await server.server.sendResourceListChanged().catch(() => undefined);
        const client = server.server.getClientVersion()?.name ?? "";
        const text =
          tool.annotations.readOnlyHint && SENDS_STRUCTURED_TO_MODEL.test(client)
            ? `${tool.name}: the result is the structured content of this message.`
            : outcome.text;
        return {
          content: [{ type: "text", text }],
          structuredContent: outcome.output as Record<string, unknown>,
        };
      },
    );
  }
}

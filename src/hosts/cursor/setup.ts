import path from "node:path";
import type { FileEdit, HookEvents, SetupRequest } from "../shared/host.ts";
import { hookCommand, hooksEdit, mcpServer, serverEdit, versionedHooksFile } from "../shared/setup-common.ts";

/**
 * Cursor: `sessionStart` (rules and index) and `stop` (extraction). Not `beforeSubmitPrompt`:
 * Cursor lets that event allow or block the prompt, not add context, so recall in Cursor goes
 * through the MCP tools.
 */
export const CURSOR_EVENTS: HookEvents = [
  ["sessionStart", "session-start"],
  ["stop", "stop"],
];

export function cursorSetup(request: SetupRequest): FileEdit[] {
  const dir = path.join(request.scope === "project" ? request.projectRoot : request.home, ".cursor");
  const hooks = path.join(dir, "hooks.json");
  const entries = CURSOR_EVENTS.map(([event, memdirEvent]) => ({
    event,
    entry: { command: hookCommand(request, memdirEvent) },
  }));
  return [
    hooksEdit(hooks, entries, request, versionedHooksFile(request)),
    serverEdit(path.join(dir, "mcp.json"), "mcpServers", mcpServer(request), request),
  ];
}

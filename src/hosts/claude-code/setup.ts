import path from "node:path";
import type { FileEdit, SetupRequest } from "../shared/host.ts";
import type { RecommendedSetting } from "../shared/prior-values.ts";
import { CLAUDE_EVENTS, groupHooks, hooksEdit, mcpServer, serverEdit } from "../shared/setup-common.ts";

/**
 * The recommended setup: Claude Code's auto memory off, memdir on. memdir reads
 * `autoMemoryEnabled` as well (docs/recall.md#turning-memory-off), so the same settings file
 * also sets MEMDIR_DISABLE=0 in its `env` — which Claude Code hands to every hook and MCP server,
 * and which wins over the setting for memdir. `--remove` puts back what they held before
 * (prior-values.ts).
 */
export const CLAUDE_CODE_RECOMMENDED: RecommendedSetting[] = [
  { path: ["autoMemoryEnabled"], value: false },
  { path: ["env", "MEMDIR_DISABLE"], value: "0" },
];

export function claudeCodeSetup(request: SetupRequest): FileEdit[] {
  const configDir = request.claudeConfigDir ?? path.join(request.home, ".claude");
  const project = request.scope === "project";
  const settings = project
    ? path.join(request.projectRoot, ".claude", "settings.json")
    : path.join(configDir, "settings.json");
  // User-scope MCP servers live in ~/.claude.json (inside CLAUDE_CONFIG_DIR when that is set);
  // project-scope ones in the repository's .mcp.json.
  const mcp = project
    ? path.join(request.projectRoot, ".mcp.json")
    : request.claudeConfigDir
      ? path.join(request.claudeConfigDir, ".claude.json")
      : path.join(request.home, ".claude.json");
  return [
    hooksEdit(settings, groupHooks(request, CLAUDE_EVENTS, "s"), request, undefined, CLAUDE_CODE_RECOMMENDED),
    serverEdit(mcp, "mcpServers", { type: "stdio", ...mcpServer(request) }, request),
  ];
}

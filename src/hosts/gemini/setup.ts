import path from "node:path";
import type { FileEdit, HookEvents, SetupRequest } from "../shared/host.ts";
import { withServer } from "../shared/json-config.ts";
import { ALLOWED_MEMORY_TOOLS, groupHooks, hooksEdit, mcpServer } from "../shared/setup-common.ts";

/** Gemini CLI's AfterTool takes `hookSpecificOutput.additionalContext` as AfterAgent does. */
export const GEMINI_EVENTS: HookEvents = [
  ["SessionStart", "session-start"],
  ["BeforeAgent", "before-agent"],
  ["AfterTool", "after-tool", "read_file|write_file|replace"],
  ["AfterAgent", "after-agent"],
];

/** memdir's own policy file for Gemini CLI (`~/.gemini/policies/memdir.toml`), whole. */
function geminiPolicy(): string {
  const names = ALLOWED_MEMORY_TOOLS.map((tool) => `"mcp_memdir_${tool}"`).join(", ");
  return [
    "# Written by `memdir setup gemini` (`memdir setup gemini --remove` empties it): memdir's MCP tools",
    "# that read memory or add one run without asking, headless runs (gemini -p) included.",
    "[[rule]]",
    'mcpName = "memdir"',
    `toolName = [${names}]`,
    'decision = "allow"',
    "priority = 100",
    "",
  ].join("\n");
}

export function geminiSetup(request: SetupRequest): FileEdit[] {
  const base = request.scope === "project" ? request.projectRoot : (request.geminiCliHome ?? request.home);
  const settings = path.join(base, ".gemini", "settings.json");
  return [
    hooksEdit(settings, groupHooks(request, GEMINI_EVENTS, "ms"), request, (doc) =>
      withServer(doc, "mcpServers", request.remove ? null : mcpServer(request), settings),
    ),
    {
      path: path.join(base, ".gemini", "policies", "memdir.toml"),
      format: "toml",
      edit: () => (request.remove ? "" : geminiPolicy()),
    },
  ];
}

import path from "node:path";
import type { FileEdit, HookEvents, SetupRequest } from "../shared/host.ts";
import { withAllowed, withServer } from "../shared/json-config.ts";
import type { RecommendedSetting } from "../shared/prior-values.ts";
import { ALLOWED_MEMORY_TOOLS, groupHooks, hooksEdit, mcpServer } from "../shared/setup-common.ts";

/**
 * Claude Code's event names, with the file hook after Qwen Code's own file tools (`read_file`,
 * `write_file`, `edit`: its `ToolNames`, the name its PostToolUse payload carries in `tool_name`).
 * Qwen Code appends a PostToolUse's `hookSpecificOutput.additionalContext` to the tool's result
 * (docs/design.md#file-hook; test/integration/qwen.test.ts). Anchored: Qwen tests a matcher with
 * `|` as an unanchored regular expression, so a bare `edit` would also run after `notebook_edit`.
 */
export const QWEN_EVENTS: HookEvents = [
  ["SessionStart", "session-start"],
  ["UserPromptSubmit", "user-prompt-submit"],
  ["PostToolUse", "post-tool-use", "^(read_file|write_file|edit)$"],
  ["Stop", "stop"],
];

/** `--recommended`: Qwen Code's managed auto memory off (which also stops its dream). */
export const QWEN_RECOMMENDED: RecommendedSetting[] = [
  { path: ["memory", "enableManagedAutoMemory"], value: false },
];

/**
 * Qwen Code: `settings.json` in `~/.qwen` (`QWEN_HOME` in its place, as Qwen Code reads it) or the
 * repository's `.qwen/`, with Claude Code's hook shape and event names (SessionStart,
 * UserPromptSubmit, PostToolUse after its file tools, Stop; timeouts in seconds) and the MCP server under `mcpServers`.
 * `permissions.allow` lists memdir's reading tools and `memory_save` (ALLOWED_MEMORY_TOOLS):
 * Qwen Code defers MCP tools (the model reaches them through `tool_search` and `tool_call`) and
 * denies what would ask in a headless run. `--recommended` turns Qwen's managed auto memory off (`memory.enableManagedAutoMemory`, which
 * also stops its dream: Qwen Code's settings schema).
 */
export function qwenSetup(request: SetupRequest): FileEdit[] {
  const dir =
    request.scope === "project"
      ? path.join(request.projectRoot, ".qwen")
      : (request.qwenHome ?? path.join(request.home, ".qwen"));
  const settings = path.join(dir, "settings.json");
  return [
    hooksEdit(
      settings,
      groupHooks(request, QWEN_EVENTS, "s"),
      request,
      (doc) =>
        withAllowed(
          withServer(doc, "mcpServers", request.remove ? null : mcpServer(request), settings),
          "permissions",
          ALLOWED_MEMORY_TOOLS.map((tool) => `mcp__memdir__${tool}`),
          request.remove,
          settings,
        ),
      QWEN_RECOMMENDED,
    ),
  ];
}

import type { FileEdit, HookEvents, SetupRequest } from "./host.ts";
import { type HookEntry, type JsonObject, withHooks, withServer } from "./json-config.ts";
import { type RecommendedSetting, withValueAt } from "./prior-values.ts";

/** The MCP server as most agents write it: `{command, args}` (`["mcp"]` after the prefix's own words). */
export function mcpServer(request: SetupRequest): { command: string; args: string[] } {
  const [command = "memdir", ...rest] = request.command;
  return { command, args: [...rest, "mcp"] };
}

/**
 * One hook's command line: the command that starts memdir, then `hook <event>` (and `--host
 * <host>`). That tail is how setup, `--remove` and `memdir doctor` know the line for memdir's
 * whatever the command (memdir-hooks.ts): change one with the other.
 */
export function hookCommand(request: SetupRequest, event: string, host?: string): string {
  return `${request.commandLine} hook ${event}${host === undefined ? "" : ` --host ${host}`}`;
}

/**
 * Claude Code's hook shape, which Codex and Gemini CLI share: event → `[{matcher?, hooks:
 * [{type: "command", command, timeout}]}]`. Claude Code and Codex count `timeout` in seconds,
 * Gemini CLI in milliseconds (and names each hook). memdir bounds its own work (8 s for a
 * prompt, `DEFAULT_HOOK_TIMEOUT_MS`), so the timeout only caps a hook that hangs.
 */
export function groupHooks(request: SetupRequest, events: HookEvents, unit: "s" | "ms"): HookEntry[] {
  return events.map(([event, memdirEvent, matcher]) => ({
    event,
    entry: {
      ...(matcher === undefined ? {} : { matcher }),
      hooks: [
        {
          ...(unit === "ms" ? { name: `memdir-${memdirEvent}` } : {}),
          type: "command",
          command: hookCommand(request, memdirEvent),
          timeout: unit === "ms" ? 10_000 : 10,
        },
      ],
    },
  }));
}

/**
 * Claude Code also runs `post-tool-use` after its file tools: the memories about the file the
 * agent just read or edited (docs/design.md#file-hook). PostToolUse, not PreToolUse: Claude Code
 * passes PostToolUse's `additionalContext` to the model with the tool's result.
 */
export const CLAUDE_EVENTS: HookEvents = [
  ["SessionStart", "session-start"],
  ["UserPromptSubmit", "user-prompt-submit"],
  ["PostToolUse", "post-tool-use", "Read|Edit|Write|MultiEdit|NotebookEdit"],
  ["Stop", "stop"],
];
/**
 * The memdir tools Gemini CLI and Qwen Code may run without asking: those that read, and
 * `memory_save`, which only adds a memory (a save that names an existing file is refused). In a
 * headless run (`gemini -p`, `qwen -p`) both turn every "ask" into "deny" — Gemini CLI even
 * leaves denied tools out of the model's request — so without this rule memdir's tools do
 * nothing there (test/integration/gemini.test.ts, qwen.test.ts). `memory_update`, `memory_delete`
 * and the inbox's accept and reject still ask.
 */
export const ALLOWED_MEMORY_TOOLS = [
  "memory_recall",
  "memory_save",
  "memory_list",
  "memory_read",
  "memory_context",
  "memory_inbox_list",
];

export function hooksEdit(
  file: string,
  entries: HookEntry[],
  request: SetupRequest,
  extra?: (doc: JsonObject) => JsonObject,
  recommended?: RecommendedSetting[],
): FileEdit {
  return {
    path: file,
    format: "json",
    edit: (doc) => {
      const hooked = withHooks(doc, request.remove ? [] : entries, file);
      const next = extra ? extra(hooked) : hooked;
      if (!recommended || !request.recommended || request.remove) return next;
      return recommended.reduce(
        (current, setting) => withValueAt(current, setting.path, setting.value),
        next,
      );
    },
    ...(recommended ? { recommended } : {}),
  };
}

export function serverEdit(file: string, key: string, server: JsonObject, request: SetupRequest): FileEdit {
  return {
    path: file,
    format: "json",
    edit: (doc) => withServer(doc, key, request.remove ? null : server, file),
  };
}

/**
 * Cursor's and Copilot CLI's hooks files carry `version: 1` beside `hooks`: setup adds it, and
 * `--remove` empties a file that holds nothing else.
 */
export function versionedHooksFile(request: SetupRequest): (doc: JsonObject) => JsonObject {
  return (doc) => {
    if (request.remove)
      return doc.hooks === undefined && doc.version === 1 && Object.keys(doc).length === 1 ? {} : doc;
    return doc.version === undefined ? { version: 1, ...doc } : doc;
  };
}

/**
 * The messages of a JSON-lines session file, one line at a time through `message` (its
 * `lineNumber` is the line's index); a line that is not JSON or not a message is skipped.
 */
export function messagesOfJsonLines<T>(
  text: string,
  message: (line: unknown, lineNumber: number) => T | null,
): T[] {
  const found: T[] = [];
  const lines = text.split("\n");
  for (let lineNumber = 0; lineNumber < lines.length; lineNumber++) {
    if (lines[lineNumber].trim() === "") continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(lines[lineNumber]);
    } catch {
      continue;
    }
    const one = message(parsed, lineNumber);
    if (one !== null) found.push(one);
  }
  return found;
}

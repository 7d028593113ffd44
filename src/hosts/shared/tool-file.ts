import path from "node:path";
import { shellReadPath } from "./shell-read.ts";

/**
 * The file tools whose `PostToolUse` / `AfterTool` brings the memories about their file
 * (docs/design.md#file-hook), by the name each host gives them, with the argument holding the
 * path: Claude Code's `Read`, `Edit`, `Write`, `MultiEdit` and `NotebookEdit`; Gemini CLI's and
 * Qwen Code's `read_file`, `write_file`, `replace` and `edit` (`absolute_path` in older releases).
 * Copilot CLI names its `view`, `edit` and `create` by Claude Code's names in a PostToolUse
 * payload (`Read`, `Edit`, …) but keeps its own argument, `path` (test/integration/copilot.test.ts).
 * The shell tool (`Bash`, as Codex names its `exec_command` in a PostToolUse payload, and Claude
 * Code its own) counts only for a command line that reads one file (shell-read.ts).
 */
const FILE_TOOLS: Record<string, readonly string[]> = {
  Read: ["file_path", "path"],
  Edit: ["file_path", "path"],
  Write: ["file_path", "path"],
  MultiEdit: ["file_path"],
  NotebookEdit: ["notebook_path"],
  read_file: ["file_path", "absolute_path", "path"],
  write_file: ["file_path", "absolute_path", "path"],
  replace: ["file_path", "absolute_path", "path"],
  edit: ["file_path", "absolute_path", "path"],
};

/** The file tools above that write the file they name (the others only read it). */
const WRITING_TOOLS = new Set(["Write", "Edit", "MultiEdit", "write_file", "replace", "edit"]);

/**
 * Whether a file tool writes the file it names (`Write`, `write_file`, `edit`, …), as the file
 * hook tells a write into the memory dir from a read (src/hooks/memory-write.ts).
 *
 * @example
 * writesFile("Edit") // true
 * writesFile("Read") // false
 */
export function writesFile(toolName: string | undefined): boolean {
  return toolName !== undefined && WRITING_TOOLS.has(toolName);
}

/** The shell tool's name in a PostToolUse payload; its command line is in `command`. */
const SHELL_TOOL = "Bash";

/**
 * The absolute path of the file a tool call touched, or null when the tool is not a file tool or
 * names no path. A relative path resolves against `cwd`. Pure: the hook decides from this alone
 * whether to look at memory at all, so every other tool call costs no more than its JSON parse.
 *
 * @example
 * toolFilePath("Read", { file_path: "/repo/src/auth/login.ts" }, "/repo") // "/repo/src/auth/login.ts"
 * toolFilePath("Bash", { command: "sed -n '1,40p' src/a.ts" }, "/repo") // "/repo/src/a.ts"
 * toolFilePath("Bash", { command: "ls" }, "/repo") // null
 */
export function toolFilePath(
  toolName: string | undefined,
  toolInput: Record<string, unknown> | undefined,
  cwd: string,
): string | null {
  if (toolName === undefined || toolInput === undefined) return null;
  if (toolName === SHELL_TOOL) {
    const command = toolInput.command;
    const file = typeof command === "string" ? shellReadPath(command) : null;
    return file === null ? null : path.resolve(cwd, file);
  }
  if (!Object.hasOwn(FILE_TOOLS, toolName)) return null;
  for (const key of FILE_TOOLS[toolName]) {
    const value = toolInput[key];
    if (typeof value === "string" && value.trim() !== "") return path.resolve(cwd, value);
  }
  return null;
}

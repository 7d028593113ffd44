import fs from "node:fs/promises";
import path from "node:path";
import { isInside } from "../memdir/fs/inside.ts";
import { memoryFileRefusal, resolveInsideMemoryDir } from "../memdir/fs/safe-path.ts";
import { requestedToolPath, type ToolContext } from "./tools/spec.ts";
import { realPathOfTarget } from "./tools/write-file.ts";

/** The verdict on one tool call; a refusal's message goes back to the model as an error result. */
export type PermissionDecision = { allow: true } | { allow: false; message: string };

/** Decides each tool call before it runs (docs/design.md#the-forked-agent: the forked agent's sandbox). */
export type PermissionCheck = (
  toolName: string,
  input: unknown,
  context: ToolContext,
) => Promise<PermissionDecision>;

/** Tools that never change a file: allowed to read anywhere (the model needs to look around). */
const READ_ONLY_TOOLS = new Set(["Read", "Grep", "Glob"]);
/** Tools whose `file_path` input is written. */
const WRITE_TOOLS = new Set(["Write", "Edit"]);

/** The `file_path` a write tool asked for, kept as written (the safe-path check wants to see `..`). */
function requestedPath(input: unknown, context: ToolContext): string | null {
  const filePath = (input as { file_path?: unknown } | null)?.file_path;
  if (typeof filePath !== "string" || filePath === "") return null;
  return requestedToolPath(context, filePath);
}

/**
 * Whether `requested` lies inside `baseDir` on real paths: symlinks (of the file or any parent)
 * that leave the folder and NUL bytes are refused. Used for the project root; the memory dir
 * has its own stricter check (`resolveInsideMemoryDir`).
 */
export async function isInsideDirectory(baseDir: string, requested: string): Promise<boolean> {
  if (requested.includes("\0")) return false;
  const realBase = await fs.realpath(baseDir).catch(() => path.resolve(baseDir));
  const realTarget = await realPathOfTarget(path.resolve(requested));
  return isInside(realBase, realTarget);
}

function refuse(message: string): PermissionDecision {
  return { allow: false, message };
}

/**
 * Inside the memory dir only memory files may change (`*.md`, no dot-path): memdir's own state
 * (`.git/config`, `.memdir-project`, lock files) and non-memory files such as `run.sh` are
 * refused, so no agent can plant a command that a later git call runs (docs/design.md#path-safety).
 */
export function memoryFileDecision(toolName: string, file: string): PermissionDecision {
  const refusal = memoryFileRefusal(file);
  return refusal === null ? { allow: true } : refuse(`${toolName} refused: ${refusal}`);
}

/**
 * The main agent: reads anywhere; Write/Edit inside the project root or the memory dir (real
 * paths); any other tool or place is refused with a message the model can read.
 *
 * @example const permissions = mainAgentPermissions({projectRoot: "/home/me/shop", memoryDir: location.memoryDir});
 */
export function mainAgentPermissions(options: {
  projectRoot: string;
  memoryDir: string | null;
}): PermissionCheck {
  return async (toolName, input, context) => {
    if (READ_ONLY_TOOLS.has(toolName)) return { allow: true };
    if (!WRITE_TOOLS.has(toolName)) return refuse(`${toolName}: this tool is not allowed for this agent`);
    const requested = requestedPath(input, context);
    if (requested === null) return refuse(`${toolName}: file_path is missing`);
    if (options.memoryDir !== null) {
      const inMemory = await resolveInsideMemoryDir(options.memoryDir, requested);
      if (inMemory.ok) return memoryFileDecision(toolName, inMemory.file);
    }
    if (await isInsideDirectory(options.projectRoot, requested)) return { allow: true };
    const places =
      options.memoryDir === null
        ? `the project (${options.projectRoot})`
        : `the project (${options.projectRoot}) and the memory directory (${options.memoryDir})`;
    return refuse(`${toolName} refused: ${requested} is outside the places this agent may write: ${places}`);
  };
}

/**
 * Forked agents (extraction, consolidation): Read/Grep/Glob anywhere, Write/Edit only on memory
 * files inside the memory dir (docs/design.md#the-forked-agent), everything else refused. A write to `src/auth/login.ts`
 * is refused, and so is one to the memory dir's `.git/config` or `run.sh`.
 */
export function memoryOnlyPermissions(options: { memoryDir: string }): PermissionCheck {
  return async (toolName, input, context) => {
    if (READ_ONLY_TOOLS.has(toolName)) return { allow: true };
    if (!WRITE_TOOLS.has(toolName)) return refuse(`${toolName}: this tool is not allowed for this agent`);
    const requested = requestedPath(input, context);
    if (requested === null) return refuse(`${toolName}: file_path is missing`);
    const inMemory = await resolveInsideMemoryDir(options.memoryDir, requested);
    if (inMemory.ok) return memoryFileDecision(toolName, inMemory.file);
    // On a scratch copy the refusal names the memory dir the model knows, not the copy.
    const shown = context.shownMemoryDir ?? options.memoryDir;
    return refuse(
      `${toolName} refused: this agent may write only inside the memory directory ${shown} (${inMemory.reason.replaceAll(options.memoryDir, shown)})`,
    );
  };
}

/** Allows every tool call (tests and trusted embedders only). */
export const allowAll: PermissionCheck = async () => ({ allow: true });

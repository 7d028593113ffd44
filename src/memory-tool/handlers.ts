import fs from "node:fs/promises";
import path from "node:path";
import { MemdirError } from "../errors.ts";
import { INDEX_FILE } from "../memdir/format/index-file.ts";
import { memoryFileRefusal, resolveInsideMemoryDir } from "../memdir/fs/safe-path.ts";
import type { Memdir } from "../memdir/instance.ts";
import { scanHeaders } from "../memdir/scan/scan.ts";
import { assertNoSecrets } from "../memdir/trust/secrets.ts";
import { removeMemory, type SaveMemoryResult, saveMemory } from "../memdir/write/write.ts";
import { spelledAsOnDisk } from "../memdir/write/write-targets.ts";
import type { Clock } from "../types.ts";
import type { MemdirMemoryToolHandlers } from "./commands.ts";
import { inferMemory } from "./infer.ts";
import { viewFile, viewFolder } from "./view.ts";

/** The folder the model sees; it maps onto the memory directory. */
export const MEMORY_TOOL_ROOT = "/memories";

export interface MemoryToolHandlerOptions {
  /** The caller's instance of the memory dir, for its header cache (see `openMemdir`). */
  memdir?: Memdir;
  /** Clock for the ages `view` shows; default `Date.now`. */
  now?: Clock;
}

/**
 * Anthropic's memory tool (`memory_20250818`) on a memdir memory directory
 * (docs/design.md#memory-tool): `/memories` is the memory dir, every write goes through the
 * single writer (the file and its `MEMORY.md` line change together, secrets and unsafe paths are
 * refused, only memory files can be written), `view /memories` lists the memories with their
 * descriptions, and a file written without frontmatter gets an inferred type and description
 * (the result says which). Pass the result to the SDK's `betaMemoryTool`.
 *
 * @example
 * import Anthropic from "@anthropic-ai/sdk";
 * import { betaMemoryTool } from "@anthropic-ai/sdk/helpers/beta/memory";
 * import { memoryToolHandlers } from "memdir/anthropic";
 * const memory = betaMemoryTool(memoryToolHandlers(memoryDir));
 * await new Anthropic().beta.messages.toolRunner({
 *   model: "claude-sonnet-4-5",
 *   max_tokens: 1024,
 *   tools: [memory],
 *   messages: [{ role: "user", content: "I prefer tabs over spaces. Remember that." }],
 * });
 */
export function memoryToolHandlers(
  memoryDir: string,
  options: MemoryToolHandlerOptions = {},
): MemdirMemoryToolHandlers {
  const now = options.now ?? Date.now;
  const scan = () => scanHeaders(memoryDir, options.memdir ? { memdir: options.memdir } : { cache: null });

  /** Resolves a `/memories/…` path inside the memory dir; `file` "" is the memory dir itself. */
  async function resolve(memoryPath: unknown): Promise<{ file: string; path: string }> {
    if (typeof memoryPath !== "string")
      throw new MemdirError("invalid-input", "memory tool: the path must be a string");
    const trimmed = memoryPath.replace(/\/+$/, "");
    if (trimmed === MEMORY_TOOL_ROOT) return { file: "", path: path.resolve(memoryDir) };
    if (!trimmed.startsWith(`${MEMORY_TOOL_ROOT}/`))
      throw new MemdirError(
        "path-outside",
        `memory tool: paths start with ${MEMORY_TOOL_ROOT}, got ${JSON.stringify(memoryPath)}`,
      );
    // In the spelling the file has on disk: a model may send `café.md` decomposed (NFD), and the
    // writer acts on the file it names whichever form it came in (write-targets.ts).
    const relative = await spelledAsOnDisk(memoryDir, trimmed.slice(MEMORY_TOOL_ROOT.length + 1));
    const result = await resolveInsideMemoryDir(memoryDir, relative);
    // The model knows the folder as /memories, not by its place on disk.
    if (!result.ok)
      throw new MemdirError(
        "path-outside",
        `memory tool: ${result.reason.replaceAll(path.resolve(memoryDir), MEMORY_TOOL_ROOT)}`,
      );
    return { file: result.file, path: result.path };
  }

  /** Like `resolve`, for a path that must name a memory file the tool may change. */
  async function resolveMemoryFile(memoryPath: unknown): Promise<{ file: string; path: string }> {
    const target = await resolve(memoryPath);
    if (target.file === "")
      throw new MemdirError("invalid-input", `memory tool: ${MEMORY_TOOL_ROOT} is the folder, not a file`);
    if (path.posix.basename(target.file).toLowerCase() === INDEX_FILE.toLowerCase())
      throw new MemdirError(
        "invalid-input",
        `memory tool: ${MEMORY_TOOL_ROOT}/${target.file} is the index memdir keeps in step with the memory files; change a memory file instead`,
      );
    const refusal = memoryFileRefusal(target.file);
    if (refusal) throw new MemdirError("invalid-input", `memory tool: ${refusal}`);
    return target;
  }

  /** Saves `text` as the memory `file` through the single writer; says what was inferred. */
  async function commit(
    file: string,
    text: string,
    replace: boolean,
  ): Promise<{ saved: SaveMemoryResult; notes: string }> {
    assertNoSecrets(text, `${MEMORY_TOOL_ROOT}/${file}`);
    const memory = inferMemory(file, text);
    const saved = await saveMemory(
      memoryDir,
      {
        file,
        type: memory.type,
        description: memory.description,
        body: memory.body,
        extra: memory.extra,
        replace,
      },
      { origin: { source: "agent" } },
    );
    const notes: string[] = [];
    if (memory.inferred.length > 0)
      notes.push(
        `The file had no complete frontmatter, so memdir added ${memory.inferred.join(" and ")}; ` +
          "edit the frontmatter if either is wrong.",
      );
    if (saved.indexWarning) notes.push(`Warning: ${saved.indexWarning}`);
    return { saved, notes: notes.length > 0 ? `\n${notes.join("\n")}` : "" };
  }

  async function readExisting(target: { file: string; path: string }, memoryPath: string): Promise<string> {
    const stat = await fs.lstat(target.path).catch(() => null);
    if (stat === null)
      throw new MemdirError("not-found", `memory tool: the path ${memoryPath} does not exist`);
    if (!stat.isFile())
      throw new MemdirError("invalid-input", `memory tool: the path ${memoryPath} is not a file`);
    return fs.readFile(target.path, "utf8");
  }

  return {
    async view(command) {
      const target = await resolve(command.path);
      const stat = await fs.stat(target.path).catch(() => null);
      if (stat === null && target.file !== "")
        throw new MemdirError("not-found", `memory tool: the path ${command.path} does not exist`);
      if (stat === null || stat.isDirectory()) {
        const refusal = target.file === "" ? null : memoryFileRefusal(`${target.file}/x.md`);
        if (refusal) throw new MemdirError("invalid-input", `memory tool: ${refusal}`);
        return viewFolder(command.path.replace(/\/+$/, ""), target.file, await scan(), now());
      }
      const refusal = memoryFileRefusal(target.file);
      if (refusal) throw new MemdirError("invalid-input", `memory tool: ${refusal}`);
      return viewFile(command.path, await fs.readFile(target.path, "utf8"), command.view_range);
    },

    async create(command) {
      const target = await resolveMemoryFile(command.path);
      if (await fs.lstat(target.path).catch(() => null))
        throw new MemdirError(
          "invalid-input",
          `memory tool: the file ${command.path} already exists; change it with str_replace or insert, or delete it first`,
        );
      const { notes } = await commit(target.file, String(command.file_text ?? ""), false);
      return `File created successfully at: ${command.path} (memdir added its line to ${MEMORY_TOOL_ROOT}/${INDEX_FILE})${notes}`;
    },

    async str_replace(command) {
      const target = await resolveMemoryFile(command.path);
      const text = await readExisting(target, command.path);
      const oldText = String(command.old_str ?? "");
      const count = oldText === "" ? 0 : text.split(oldText).length - 1;
      if (count === 0)
        throw new MemdirError(
          "invalid-input",
          `memory tool: no replacement was performed, old_str did not appear verbatim in ${command.path}`,
        );
      if (count > 1)
        throw new MemdirError(
          "invalid-input",
          `memory tool: no replacement was performed, old_str appears ${count} times in ${command.path}; make it unique`,
        );
      const { notes } = await commit(
        target.file,
        text.replace(oldText, () => String(command.new_str ?? "")),
        true,
      );
      return `The memory file ${command.path} has been edited.${notes}`;
    },

    async insert(command) {
      const target = await resolveMemoryFile(command.path);
      const lines = (await readExisting(target, command.path)).split("\n");
      const at = command.insert_line;
      if (!Number.isInteger(at) || at < 0 || at > lines.length)
        throw new MemdirError(
          "invalid-input",
          `memory tool: invalid insert_line ${JSON.stringify(at)}: it should be within [0, ${lines.length}]`,
        );
      lines.splice(at, 0, String(command.insert_text ?? "").replace(/\n$/, ""));
      const { notes } = await commit(target.file, lines.join("\n"), true);
      return `The file ${command.path} has been edited.${notes}`;
    },

    async delete(command) {
      const target = await resolve(command.path);
      if (target.file === "")
        throw new MemdirError(
          "invalid-input",
          `memory tool: cannot delete the ${MEMORY_TOOL_ROOT} directory itself`,
        );
      const stat = await fs.lstat(target.path).catch(() => null);
      if (stat?.isDirectory()) return deleteFolder(target, command.path);
      const file = await resolveMemoryFile(command.path);
      await removeMemory(memoryDir, file.file);
      return `Successfully deleted ${command.path} (and its line in ${MEMORY_TOOL_ROOT}/${INDEX_FILE})`;
    },

    async rename(command) {
      const from = await resolveMemoryFile(command.old_path);
      const to = await resolveMemoryFile(command.new_path);
      const text = await readExisting(from, command.old_path);
      if (await fs.lstat(to.path).catch(() => null))
        throw new MemdirError(
          "invalid-input",
          `memory tool: the destination ${command.new_path} already exists`,
        );
      // The new file is complete (with its index line) before the old one goes: a failure
      // in between leaves two copies, never none.
      const { notes } = await commit(to.file, text, false);
      await removeMemory(memoryDir, from.file);
      return `Successfully renamed ${command.old_path} to ${command.new_path}${notes}`;
    },
  };

  /** Deletes every memory in a folder through the writer, then the folder when nothing else is left. */
  async function deleteFolder(target: { file: string; path: string }, memoryPath: string): Promise<string> {
    const refusal = memoryFileRefusal(`${target.file}/x.md`);
    if (refusal) throw new MemdirError("invalid-input", `memory tool: ${refusal}`);
    const inside = (await scan()).filter((header) => header.file.startsWith(`${target.file}/`));
    for (const header of inside) await removeMemory(memoryDir, header.file);
    const left = await fs.readdir(target.path, { recursive: true, withFileTypes: true });
    if (left.some((entry) => !entry.isDirectory()))
      return `Deleted the ${inside.length} memories in ${memoryPath}; the folder stays, it holds files that are not memories`;
    await fs.rm(target.path, { recursive: true });
    return `Successfully deleted ${memoryPath} (${inside.length} memories and their lines in ${MEMORY_TOOL_ROOT}/${INDEX_FILE})`;
  }
}

import { MemdirError } from "../../errors.ts";
import type { ImportKind, ReaderContext, SourceRead } from "./types.ts";

/**
 * Reads one source of `kind` (docs/import.md). `from` is the `--from` path; without it the tool's
 * own default place is read (claude-mem, gemini, qwen), and the kinds that have none refuse.
 * Each reader loads on first use, so the SQLite engine only loads for claude-mem.
 */
export async function readSource(
  kind: ImportKind,
  from: string | undefined,
  context: ReaderContext,
): Promise<SourceRead> {
  switch (kind) {
    case "claude-mem": {
      const { defaultClaudeMemPath, readClaudeMem } = await import("./claude-mem.ts");
      return readClaudeMem(from ?? defaultClaudeMemPath(context));
    }
    case "gemini": {
      const { readAddedMemories } = await import("./added-memories.ts");
      const { geminiContextFile } = await import("../../hosts/gemini/memory-files.ts");
      return readAddedMemories("gemini", from ?? geminiContextFile(context.home));
    }
    case "qwen": {
      const { readQwen } = await import("./qwen.ts");
      return readQwen(from, context);
    }
    case "mcp-memory": {
      const { readMcpMemory } = await import("./mcp-memory.ts");
      return readMcpMemory(required(kind, from, "the server's memory.jsonl (its MEMORY_FILE_PATH)"));
    }
    case "mem0": {
      const { readMem0 } = await import("./mem0.ts");
      return readMem0(required(kind, from, "a JSON file of get_all's result"));
    }
    case "markdown": {
      const { readMarkdownFolder } = await import("./markdown.ts");
      return readMarkdownFolder(kind, required(kind, from, "the folder of notes"));
    }
    case "jsonl": {
      const { readJsonl } = await import("./jsonl.ts");
      return readJsonl(required(kind, from, "the file `memdir export --format jsonl` wrote"));
    }
  }
}

function required(kind: ImportKind, from: string | undefined, what: string): string {
  if (from === undefined || from === "")
    throw new MemdirError("usage", `import: ${kind}: give --from PATH (${what}); it has no default place`);
  return from;
}

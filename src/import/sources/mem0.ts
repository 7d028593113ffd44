import { isMemoryType } from "../../types.ts";
import { readSourceText } from "./source-file.ts";
import { descriptionFrom, timeFrom } from "./text.ts";
import type { ImportCandidate, SkippedSource, SourceRead } from "./types.ts";

/**
 * A JSON export of mem0's `get_all` (docs/import.md#mem0): a list, or `{results: […]}`, of
 * `{id, memory, metadata, created_at, updated_at, user_id}`. mem0 keeps facts about a user, so a
 * memory is `user` unless its metadata names one of memdir's types (`metadata.type`).
 */
export async function readMem0(from: string): Promise<SourceRead> {
  return mem0Candidates(await readSourceText("mem0", from), from);
}

/** The export's items as memories (pure). */
export function mem0Candidates(text: string, from = "mem0"): SourceRead {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { candidates: [], skipped: [{ source: from, reason: `not JSON (${(error as Error).message})` }] };
  }
  const items = Array.isArray(parsed)
    ? parsed
    : parsed && typeof parsed === "object" && Array.isArray((parsed as { results?: unknown }).results)
      ? (parsed as { results: unknown[] }).results
      : null;
  if (items === null)
    return { candidates: [], skipped: [{ source: from, reason: "neither a list nor {results: [...]}" }] };
  const candidates: ImportCandidate[] = [];
  const skipped: SkippedSource[] = [];
  for (const [index, raw] of items.entries()) {
    const item = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
    const id = typeof item.id === "string" || typeof item.id === "number" ? String(item.id) : `#${index + 1}`;
    const label = `mem0 memory ${id}`;
    const memory = typeof item.memory === "string" ? item.memory.trim() : "";
    if (memory === "") {
      skipped.push({ source: label, reason: "no memory text" });
      continue;
    }
    const metadata = (item.metadata && typeof item.metadata === "object" ? item.metadata : {}) as Record<
      string,
      unknown
    >;
    const about =
      typeof item.user_id === "string" && item.user_id !== "" ? `\n\nAbout user: ${item.user_id}` : "";
    candidates.push({
      key: `mem0:${id}`,
      label,
      type: isMemoryType(metadata.type) ? metadata.type : "user",
      description: descriptionFrom(memory),
      body: `${memory}${about}`,
      modifiedMs: timeFrom(item.updated_at) ?? timeFrom(item.created_at),
    });
  }
  return { candidates, skipped };
}

import { isMemoryType } from "../../types.ts";
import { readSourceText } from "./source-file.ts";
import { descriptionFrom, textKey, timeFrom } from "./text.ts";
import type { ImportCandidate, SkippedSource, SourceRead } from "./types.ts";

/**
 * What `memdir export --format jsonl` writes, read back (docs/import.md#jsonl): one JSON object a
 * line, `{file, title?, ...frontmatter, body}`. Every frontmatter key comes back; the writer keys
 * (`description`, `type`, `modified`) become the memory's own, the provenance is stamped anew.
 */
export async function readJsonl(from: string): Promise<SourceRead> {
  return jsonlCandidates(await readSourceText("jsonl", from));
}

const LINE_KEYS = new Set(["file", "title", "body", "description", "type", "modified"]);
const STAMPED = new Set(["source", "session", "anchors", "imported_from"]);

/** The export's lines as memories (pure); a line that is not one is skipped and said. */
export function jsonlCandidates(text: string): SourceRead {
  const candidates: ImportCandidate[] = [];
  const skipped: SkippedSource[] = [];
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    const where = `jsonl line ${index + 1}`;
    let item: Record<string, unknown>;
    try {
      item = JSON.parse(line) as Record<string, unknown>;
    } catch {
      skipped.push({ source: where, reason: "not JSON" });
      continue;
    }
    if (!item || typeof item !== "object" || Array.isArray(item)) {
      skipped.push({ source: where, reason: "not an object" });
      continue;
    }
    const file = typeof item.file === "string" ? item.file : "";
    const label = file ? `${where} (${file})` : where;
    const description = typeof item.description === "string" ? item.description.trim() : "";
    if (!isMemoryType(item.type) || description === "") {
      skipped.push({ source: label, reason: "no memory type or no description" });
      continue;
    }
    const extra: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(item))
      if (!LINE_KEYS.has(name) && !STAMPED.has(name)) extra[name] = value;
    const body = typeof item.body === "string" ? item.body : "";
    candidates.push({
      // The file name alone would tell two projects' `user-role.md` apart from nothing.
      key: `jsonl:${file}:${textKey(`${description}\n${body}`)}`,
      label,
      type: item.type,
      description: descriptionFrom(description),
      body,
      ...(typeof item.title === "string" && item.title !== "" ? { title: item.title } : {}),
      modifiedMs: timeFrom(item.modified),
      extra,
      // The name the export gave, sub-folders included: the import keeps it when the writer takes it
      // (docs/design.md#import-and-export), so a round trip gives the same files.
      ...(file ? { fileName: file } : {}),
    });
  }
  return { candidates, skipped };
}

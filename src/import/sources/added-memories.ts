import { GEMINI_ADDED_MEMORIES_HEADING } from "../../hosts/gemini/memory-files.ts";
import { QWEN_ADDED_MEMORIES_HEADING } from "../../hosts/qwen/memory-files.ts";
import { fileTime, readSourceText } from "./source-file.ts";
import { descriptionFrom, textKey } from "./text.ts";
import type { ImportCandidate, SourceRead } from "./types.ts";

/**
 * Gemini CLI's and Qwen Code's `save_memory` tool appends each fact as a bullet under one heading
 * of the user's context file: `## Gemini Added Memories` in `~/.gemini/GEMINI.md`, `## Qwen Added
 * Memories` in `~/.qwen/QWEN.md` (docs/import.md#gemini). One memory per bullet, of type `user`
 * (the tool is for facts about the user and their preferences); the rest of the file is the user's
 * own instructions and is left alone. The file dates nothing: its modification time stands in.
 */
export async function readAddedMemories(kind: "gemini" | "qwen", from: string): Promise<SourceRead> {
  const text = await readSourceText(kind, from);
  return addedMemoryCandidates(kind, text, await fileTime(from));
}

// Each host says where its tool writes them (src/hosts/<agent>/memory-files.ts).
const HEADINGS = { gemini: GEMINI_ADDED_MEMORIES_HEADING, qwen: QWEN_ADDED_MEMORIES_HEADING } as const;

/** The bullets of the `## <Tool> Added Memories` section(s) of `text` as memories (pure). */
export function addedMemoryCandidates(
  kind: "gemini" | "qwen",
  text: string,
  modifiedMs: number | null,
): SourceRead {
  const heading = HEADINGS[kind];
  const candidates: ImportCandidate[] = [];
  let inSection = false;
  let sawSection = false;
  let bullet: string | null = null;
  const flush = () => {
    if (bullet === null) return;
    const fact = bullet.trim();
    bullet = null;
    if (fact === "") return;
    candidates.push({
      key: `${kind}:${textKey(fact)}`,
      label: `${kind} memory "${descriptionFrom(fact).slice(0, 60)}"`,
      type: "user",
      description: descriptionFrom(fact),
      body: fact,
      modifiedMs,
    });
  };
  for (const line of text.split(/\r?\n/)) {
    const headingMatch = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (headingMatch) {
      flush();
      inSection = headingMatch[1] === "##" && headingMatch[2].toLowerCase() === heading.toLowerCase();
      if (inSection) sawSection = true;
      continue;
    }
    if (!inSection) continue;
    const item = /^\s*[-*+]\s+(.*)$/.exec(line);
    if (item) {
      flush();
      bullet = item[1];
    } else if (bullet !== null && /^\s+\S/.test(line)) bullet += ` ${line.trim()}`;
    else flush();
  }
  flush();
  return {
    candidates,
    skipped: sawSection ? [] : [{ source: kind, reason: `no "## ${heading}" section` }],
  };
}

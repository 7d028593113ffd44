import { parseFrontmatter } from "../memdir/format/frontmatter.ts";
import { oneLine, shorten } from "../memdir/format/memory-names.ts";
import { isMemoryType, MEMORY_TYPES, type MemoryType } from "../types.ts";

/** A file the model wrote, read as a memory: what it said and what memdir had to fill in. */
export interface InferredMemory {
  type: MemoryType;
  description: string;
  body: string;
  /** Frontmatter keys besides description/type, kept as the model wrote them. */
  extra: Record<string, unknown>;
  /** One line per field memdir filled in (empty when the file was a complete memory). */
  inferred: string[];
}

// An index hook is at most 150 characters (docs/design.md#the-index); a description is its source.
const MAX_DESCRIPTION_CHARS = 150;

/**
 * Reads text the model wrote through the memory tool as a memory (pure): its frontmatter when it
 * has a valid one, else a type and a description inferred from the file name and the text, so
 * every file written through the tool is a memory recall can find (docs/design.md#memory-tool).
 *
 * @example
 * inferMemory("feedback-tests.md", "Always run the real database in tests.").inferred
 * // ['type: feedback (from the file name)', 'description: "Always run the real database in tests." (its first line)']
 */
export function inferMemory(file: string, text: string): InferredMemory {
  const parsed = parseFrontmatter(text);
  const { description: _description, type: _type, ...extra } = parsed.data;
  const body = parsed.body.replace(/^\n+/, "");
  const inferred: string[] = [];
  let type = parsed.type;
  if (type === null) {
    const guess = guessType(file, body);
    type = guess.type;
    inferred.push(`type: ${type} (${guess.reason})`);
  }
  let description = parsed.description === null ? "" : oneLine(parsed.description);
  if (description === "") {
    const first = firstLine(body);
    description = first === "" ? `${type} memory ${file}` : shorten(first, MAX_DESCRIPTION_CHARS);
    inferred.push(
      `description: ${JSON.stringify(description)} (${first === "" ? "the file is empty" : "its first line"})`,
    );
  }
  return { type, description, body, extra, inferred };
}

/** The type a file name starts with (`feedback-…`, `team/user_…`), else one guessed from the words. */
function guessType(file: string, body: string): { type: MemoryType; reason: string } {
  const base = file.split("/").pop() ?? file;
  const prefix = new RegExp(`^(${MEMORY_TYPES.join("|")})[-_.]`, "i").exec(base)?.[1]?.toLowerCase();
  if (isMemoryType(prefix)) return { type: prefix, reason: "from the file name" };
  const text = body.toLowerCase();
  if (/\bhttps?:\/\/|\b(dashboard|runbook|wiki|channel|ticket|tracked in|lives in)\b/.test(text))
    return { type: "reference", reason: "guessed from the text: it points somewhere" };
  if (/\b(always|never|don't|do not|instead of|prefer to|stop|must)\b/.test(text))
    return { type: "feedback", reason: "guessed from the text: it reads as a rule" };
  if (/\b(the user|i am|i'm|my role|they are|their role|works as)\b/.test(text))
    return { type: "user", reason: "guessed from the text: it is about the user" };
  return { type: "project", reason: "the default when nothing says otherwise" };
}

/** The first line with words, without Markdown heading or list marks. */
function firstLine(body: string): string {
  for (const line of body.split("\n")) {
    const words = oneLine(line.replace(/^\s*(#+|[-*+]|\d+[.)])\s*/, ""));
    if (words !== "") return words;
  }
  return "";
}

import { createHash } from "node:crypto";
import { MAX_HOOK_CHARS, oneLine, shorten } from "../../memdir/format/memory-names.ts";

/** One line of at most {@link MAX_HOOK_CHARS} characters from any text: an index line's hook stays short (docs/design.md#the-index). */
export function descriptionFrom(text: string): string {
  return shorten(oneLine(text), MAX_HOOK_CHARS);
}

/**
 * A short stable hash of a text, for sources whose entries have no id of their own (a bullet in
 * GEMINI.md): the same text gives the same key on every run.
 */
export function textKey(text: string): string {
  return createHash("sha256").update(oneLine(text).toLowerCase()).digest("hex").slice(0, 12);
}

/** A date a source wrote (ISO text, epoch seconds or ms), as ms; null when it is not one. */
export function timeFrom(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value) && value > 0)
    // Epoch seconds until 2286 are below 1e10; ms since 1970-04 are above.
    return value < 1e10 ? value * 1000 : value;
  if (typeof value === "string" && value.trim() !== "") {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}

/** A JSON array stored as text (claude-mem's `facts`, `concepts`, `files_read`), as strings. */
export function stringList(value: unknown): string[] {
  let parsed: unknown = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      return value.trim() === "" ? [] : [value.trim()];
    }
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.filter((item): item is string => typeof item === "string" && item.trim() !== "");
}

/** Markdown bullets of `items`, under `heading` when given; "" for none. */
export function bulletSection(heading: string, items: readonly string[]): string {
  if (items.length === 0) return "";
  return `${heading}\n${items.map((item) => `- ${oneLine(item)}`).join("\n")}`;
}

/** Paragraphs joined by one blank line, empty ones left out. */
export function paragraphs(...parts: (string | null | undefined)[]): string {
  return parts
    .map((part) => (part ?? "").trim())
    .filter(Boolean)
    .join("\n\n");
}

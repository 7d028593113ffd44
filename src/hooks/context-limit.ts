import { escapeAllSystemReminderTags } from "../prompts/system-reminder.ts";

/**
 * Most characters a hook's `additionalContext` may hold in total. Claude Code replaces a longer
 * one with a preview and a file path (docs/design.md#hook-context-limit: a 22,118-character answer reached the model as a
 * preview), so memdir stays inside it (docs/design.md#hook-context-limit).
 */
export const MAX_HOOK_CONTEXT_CHARS = 10_000;

/** A body is cut rather than dropped only when at least this much of it fits. */
const MIN_CUT_BODY_CHARS = 400;

/** One part of a hook's context: its text, and the file to read the rest from when it is cut. */
export interface ContextPart {
  text: string;
  /** Where the whole text lives (a memory file, `MEMORY.md`); parts without one are never cut. */
  path?: string;
}

const SEPARATOR = "\n\n";

/**
 * {@link MAX_HOOK_CONTEXT_CHARS} with thousands separators ("10,000"), written out by hand:
 * `toLocaleString` loads ICU's number formatting, ~10 ms of every prompt hook (docs/design.md#the-prompt-hook-process).
 */
const MAX_CHARS_TEXT = String(MAX_HOOK_CONTEXT_CHARS).replace(/\B(?=(\d{3})+$)/g, ",");

function cutNote(path: string): string {
  return `\n[… cut to keep this context within ${MAX_CHARS_TEXT} characters; read the rest at ${path}]`;
}

/** `text` cut to at most `room` characters, at a line end when one is near, never mid-pair. */
function cutTo(text: string, room: number): string {
  let cut = text.slice(0, Math.max(0, room));
  const lineEnd = cut.lastIndexOf("\n");
  if (lineEnd > room * 0.8) cut = cut.slice(0, lineEnd);
  // Do not leave half of a surrogate pair at the end.
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut;
}

/**
 * Joins `parts` into one hook context of at most {@link MAX_HOOK_CONTEXT_CHARS} characters with
 * no `<system-reminder>` tag in it (the host wraps the context in its own). Parts are kept in
 * order while they fit; the first that does not is cut, with a note naming its file, when enough
 * of it fits, and the rest are left out with one line listing their files. `null` for no parts.
 *
 * @example
 * fitHookContext([{ text: notice }, { text: memory, path: "/m/feedback-x.md" }]) // "…" (≤ 10,000 characters)
 */
export function fitHookContext(parts: readonly ContextPart[]): string | null {
  const kept: string[] = [];
  const left: string[] = [];
  let used = 0;
  for (const [index, part] of parts.entries()) {
    const text = escapeAllSystemReminderTags(part.text);
    const separator = kept.length === 0 ? 0 : SEPARATOR.length;
    if (left.length === 0 && used + separator + text.length <= MAX_HOOK_CONTEXT_CHARS) {
      kept.push(text);
      used += separator + text.length;
      continue;
    }
    if (left.length === 0 && part.path !== undefined) {
      const note = cutNote(part.path);
      // Room for the "left out" line of the parts after this one, naming their files when that
      // still leaves enough of this one to cut (a fixed reserve left long paths unnamed:
      // test/cli/hook-conformance.test.ts).
      const after = parts.slice(index + 1).flatMap((rest) => (rest.path === undefined ? [] : [rest.path]));
      const reserve = (line: string) => (after.length === 0 ? 0 : SEPARATOR.length + line.length);
      const base = MAX_HOOK_CONTEXT_CHARS - used - separator - note.length;
      const roomNaming = base - reserve(leftOutLine(after, true));
      const room = roomNaming >= MIN_CUT_BODY_CHARS ? roomNaming : base - reserve(leftOutLine(after, false));
      if (room >= MIN_CUT_BODY_CHARS) {
        const cut = `${cutTo(text, room)}${note}`;
        kept.push(cut);
        used += separator + cut.length;
        left.push(""); // everything after a cut part is left out
        continue;
      }
    }
    left.push(part.path ?? "");
  }
  const named = left.filter((path) => path !== "");
  if (named.length > 0) {
    const line = leftOutLine(named, true);
    if (used + SEPARATOR.length + line.length <= MAX_HOOK_CONTEXT_CHARS) kept.push(line);
    else {
      const short = leftOutLine(named, false);
      if (used + SEPARATOR.length + short.length <= MAX_HOOK_CONTEXT_CHARS) kept.push(short);
    }
  }
  return kept.length === 0 ? null : kept.join(SEPARATOR);
}

/** The line that counts the parts left out and, with `withPaths`, names their files. */
function leftOutLine(paths: readonly string[], withPaths: boolean): string {
  const count = `${paths.length} more left out to keep this context within ${MAX_CHARS_TEXT} characters`;
  return withPaths ? `[${count}: ${paths.join(", ")}]` : `[${count}]`;
}

import { escapeSystemReminder } from "../prompts/system-reminder.ts";
import type { Clock, Message } from "../types.ts";
import type { InstructionFile, InstructionFileType } from "./files.ts";

/** The opening of the user context: these files are instructions, and they beat the model's defaults. */
export const USER_CONTEXT_PREAMBLE =
  "What follows are instructions from the user and from this codebase. They take precedence over " +
  "your default behaviour: follow them exactly as written.";

/** How each kind of file is described after its path (`Contents of PATH (…):`). */
export const INSTRUCTION_FILE_DESCRIPTIONS: Record<InstructionFileType, string> = {
  Managed: "instructions set by the administrator of this machine",
  User: "user's private global instructions for all projects",
  Project: "project instructions, checked into the codebase",
  Local: "user's private project instructions, not checked in",
  AutoMem: "user's auto-memory, persists across conversations",
  TeamMem: "team's shared memory, persists across conversations",
};

/**
 * A file's content for the user context. The indexes (`AutoMem`, `TeamMem`) are written by models:
 * a `</system-reminder>` in them is escaped as recall escapes memory bodies (docs/design.md#surfacing),
 * so the index cannot end the wrapper a host puts around the context.
 */
function indexSafe(file: InstructionFile): string {
  return file.type === "AutoMem" || file.type === "TeamMem"
    ? escapeSystemReminder(file.content)
    : file.content;
}

/** The id of the user-context message, so it can be found and replaced rather than added twice. */
export const USER_CONTEXT_MESSAGE_ID = "memdir-user-context";

/** `YYYY-MM-DD` of `time` in the local time zone: the day the user is living in. */
export function localDate(time: number): string {
  const date = new Date(time);
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/**
 * Formats instruction files into the user context (docs/design.md#the-user-context, pure): the preamble, then for each
 * non-empty file `Contents of PATH (what it is):` and its content, then `Today's date is
 * YYYY-MM-DD.` With no non-empty files, only the date line remains.
 *
 * @example
 * formatUserContext(files, { now: () => Date.parse("2026-08-10T12:00:00") });
 * // "What follows are instructions …\n\nContents of /repo/CLAUDE.md (project instructions, …):\n\n…\n\nToday's date is 2026-08-10."
 */
export function formatUserContext(files: readonly InstructionFile[], options: { now?: Clock } = {}): string {
  const now = options.now ?? Date.now;
  const sections = files
    .filter((file) => file.content.trim() !== "")
    .map(
      (file) =>
        `Contents of ${file.path} (${INSTRUCTION_FILE_DESCRIPTIONS[file.type]}):\n\n${indexSafe(file)}`,
    );
  const dateLine = `Today's date is ${localDate(now())}.`;
  if (sections.length === 0) return dateLine;
  return [USER_CONTEXT_PREAMBLE, ...sections, dateLine].join("\n\n");
}

/**
 * A new message list with the user context as the first message: a hidden user message
 * (`isMeta: true`) the model clients send like any user message, so the instruction files and the
 * memory index are in the very first request (docs/design.md#the-user-context). An earlier user-context message is
 * replaced, not repeated; an empty context leaves the list as it was. The input is not changed.
 *
 * @example
 * const messages = prependUserContext(conversation, formatUserContext(files, { now }));
 * messages[0].isMeta // true
 */
export function prependUserContext(messages: readonly Message[], context: string): Message[] {
  const rest = messages.filter((message) => message.id !== USER_CONTEXT_MESSAGE_ID);
  if (context.trim() === "") return rest;
  return [{ id: USER_CONTEXT_MESSAGE_ID, role: "user", content: context, isMeta: true }, ...rest];
}

/** The four kinds of memory (docs/design.md#memory-types). */
export const MEMORY_TYPES = ["user", "feedback", "project", "reference"] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

export function isMemoryType(value: unknown): value is MemoryType {
  return typeof value === "string" && (MEMORY_TYPES as readonly string[]).includes(value);
}

/** What the 30-line header scan learns about one memory file (docs/design.md#header-scan). */
export interface MemoryHeader {
  /** Path relative to the memory dir, with `/` separators (e.g. `team/feedback-x.md`). */
  file: string;
  /** Absolute path. */
  path: string;
  mtimeMs: number;
  size: number;
  type: MemoryType | null;
  description: string | null;
  /** The frontmatter's `name` (Claude Code writes a short slug), or null/absent. */
  name?: string | null;
  /**
   * The frontmatter's `modified` time (top level, or under `metadata:` as Claude Code writes it),
   * in ms, when present and valid; null/absent otherwise. See {@link savedAtMs}.
   */
  modifiedMs?: number | null;
}

/**
 * When a memory was last saved: its frontmatter `modified` time when it has a valid one, else the
 * file's mtime (which a copy or a checkout resets). Ages, recency and "saved N days ago" use this;
 * caches keep using `mtimeMs`, which says whether the file changed (docs/design.md#saved-time).
 *
 * @example
 * savedAtMs({ mtimeMs: Date.now(), modifiedMs: Date.parse("2026-01-03T10:00:00Z") }) // 1767434400000
 */
export function savedAtMs(header: { mtimeMs: number; modifiedMs?: number | null }): number {
  return header.modifiedMs ?? header.mtimeMs;
}

// ---- Neutral conversation messages (mapped to Anthropic / OpenAI shapes by model/) ----

export interface TextBlock {
  type: "text";
  text: string;
}
export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}
export interface ToolResultBlock {
  type: "tool_result";
  toolUseId: string;
  content: string;
  isError?: boolean;
}
export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock;

/**
 * One conversation message. `isMeta` marks hidden messages the user never typed
 * (the user context, surfaced memories): they are sent to the model as user messages
 * but are not "real" user input for the prefetch gates.
 */
export interface Message {
  id: string;
  role: "user" | "assistant";
  content: string | ContentBlock[];
  isMeta?: boolean;
  /** ISO time the message was created; set by whoever creates it. */
  timestamp?: string;
}

/**
 * A message the user typed: role user, not meta, with text (tool results alone do not count).
 * The one definition the prefetch gates, the agent loop and extraction use.
 */
export function isRealUserMessage(message: Message): boolean {
  if (message.role !== "user" || message.isMeta === true) return false;
  if (typeof message.content === "string") return message.content.trim() !== "";
  return message.content.some((block) => block.type === "text" && block.text.trim() !== "");
}

/**
 * `text` without the blocks a host wraps around the user's words: Gemini CLI's
 * `<hook_context>…</hook_context>` (hooks' output, memdir's own rules, index and recalled
 * memories among them; in headless mode the session-start context is prepended to the prompt
 * this way) and `<session_context>…</session_context>` (the environment it adds). Read as the
 * user's words, they made recall match memdir's own rules and index, hid a "remember …" at the
 * prompt's end from the explicit-save rule, and were extracted again as new memories.
 *
 * @example
 * withoutHostContext("<hook_context>rules</hook_context>\nwhat is 2+2?") // "what is 2+2?"
 */
export function withoutHostContext(text: string): string {
  if (!text.includes("_context>")) return text;
  return text.replace(/<(hook_context|session_context)>[\s\S]*?<\/\1>/g, "").trim();
}

/** The last message the user really typed ({@link isRealUserMessage}), or null. */
export function lastRealUserMessage(messages: readonly Message[]): Message | null {
  return messages.findLast(isRealUserMessage) ?? null;
}

/** Text of a message: the string itself, or its text blocks joined. */
export function messageText(message: Message): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .filter((b): b is TextBlock => b.type === "text")
    .map((b) => b.text)
    .join("\n");
}

/** Files the model has read (or that were surfaced) in this session, keyed by absolute path. */
export type ReadFileState = Map<string, { readAt: number; source: "read" | "memory" }>;

/** Injected clock; tests pass a fixed one. */
export type Clock = () => number;

/**
 * One change a writer asks to be recorded as one history entry: what made it (a history kind),
 * the entry's message, and the files it may touch, relative to the memory dir (the journal copies
 * them first; `madeFiles` names files the change created under a name not known beforehand).
 */
export interface RecordedChange<T> {
  kind: "remember" | "forget" | "save" | "extract";
  /** The tool or rule that made it, added to the entry's command (`memdir mcp (memory_save)`). */
  via?: string;
  message: (result: T | undefined) => string;
  /** Default: every memory file and the index (a model's run may touch any of them). */
  files?: readonly string[];
  madeFiles?: (result: T) => readonly string[];
  /**
   * Hold the writer lock across the recording (default true), so no other writer's save lands in
   * the entry; false for a model's run, which must not block saves for its whole length.
   */
  lock?: boolean;
}

/**
 * Runs `write` as one history entry of `memoryDir`, so `memdir undo` right after it takes back
 * exactly that change (docs/design.md#undo). The history (`src/dream/history.ts`,
 * `changeRecorder`) sits above the writers that save on a user's or agent's behalf (the explicit
 * "remember …", the memory tools), so their entry points hand one in, with the clock and command.
 */
export type ChangeRecorder = <T>(
  memoryDir: string,
  change: RecordedChange<T>,
  write: () => Promise<T>,
) => Promise<T>;

/**
 * Where a long job reports how far it is: `done` of `total` units of the named step (files read,
 * memories indexed, checks run). Called per time slice, not per file; `done === total` ends the
 * step. The CLI shows it on a terminal's stderr (docs/design.md#progress); library callers may
 * ignore it.
 */
export type ProgressSink = (step: string, done: number, total: number) => void;

/**
 * How much memdir writes without asking (docs/design.md#memory-modes): `auto` writes what its
 * automatic writers find, `review` turns their writes into inbox proposals, `manual` runs no
 * automatic writer at all. Explicit saves write in every mode.
 */
export type MemoryMode = "auto" | "review" | "manual";

export const MEMORY_MODES: readonly MemoryMode[] = ["auto", "review", "manual"];

/** A memory mode from a setting or variable (case and spaces aside), or undefined when it is none. */
export function parseMemoryMode(value: unknown): MemoryMode | undefined {
  const mode = typeof value === "string" ? value.trim().toLowerCase() : "";
  return (MEMORY_MODES as readonly string[]).includes(mode) ? (mode as MemoryMode) : undefined;
}

/** The mode `envValue` names, else the first valid `memoryMode` of `settings` (highest precedence first), else `auto`. */
export function firstMemoryMode(envValue: unknown, ...settings: { memoryMode?: unknown }[]): MemoryMode {
  for (const value of [envValue, ...settings.map((file) => file.memoryMode)]) {
    const mode = parseMemoryMode(value);
    if (mode) return mode;
  }
  return "auto";
}

/** What a consolidation does with its changes: write them, or store them as a proposal. */
export type DreamMode = "apply" | "propose";

/** The first of `values` that is a positive number, else `fallback` (settings such as `inboxExpiryDays`). */
export function positiveOr(fallback: number, ...values: unknown[]): number {
  return (values.find((value) => typeof value === "number" && value > 0) as number | undefined) ?? fallback;
}

import type { Message } from "../types.ts";
import { messageFromClaudeCodeLine } from "./claude-code/transcript.ts";
import { messageFromCodexLine } from "./codex/transcript.ts";
import { messageFromCopilotLine } from "./copilot/transcript.ts";
import { messageFromCursorLine } from "./cursor/transcript.ts";

export { messagesFromGeminiSession as messagesFromWholeSession } from "./gemini/transcript.ts";

/** What one line of another agent's session file holds: a message, the session's id, or both. */
export interface ForeignLine {
  message?: Message;
  sessionId?: string;
}

/**
 * One line of a host's JSON Lines session file read by each host's reader in turn, or null when
 * none knows it. The order is the hosts' own knowledge, kept here beside their readers and not
 * in the registry: the stop hook reads transcripts, and loading the registry (every host's setup
 * code) would cost it ~80–120 ms per turn (docs/design.md#hosts). Cursor's reader goes last: its
 * lines are the loosest (a role and a text), so a stricter reader gets each line first.
 */
export function foreignTranscriptLine(parsed: unknown, lineNumber: number): ForeignLine | null {
  const claude = messageFromClaudeCodeLine(parsed);
  if (claude) return claude;
  const event = messageFromCodexLine(parsed, lineNumber) ?? messageFromCopilotLine(parsed);
  if (event) return event;
  const cursor = messageFromCursorLine(parsed, lineNumber);
  return cursor ? { message: cursor } : null;
}

import type { ResolvedConfig } from "../config.ts";
import { loadMemoryRules } from "../instructions/memory-rules.ts";
import { formatUserContext } from "../instructions/user-context.ts";
import { readIndex } from "../memdir/format/index-file.ts";
import type { MemoryLocation } from "../memdir/location/paths.ts";
import { indexWithoutInstructions } from "../memdir/trust/withhold.ts";
import { isPending, listProposals } from "../memdir/write/proposal-store.ts";
import type { Clock } from "../types.ts";
import { fitHookContext } from "./context-limit.ts";

export interface SessionStartOptions {
  config: ResolvedConfig;
  location: MemoryLocation;
  now?: Clock;
}

/**
 * The context a `SessionStart` hook adds: the memory rules (docs/design.md#memory-rules) and the memory index in the
 * user-context format (docs/design.md#the-user-context), so the index is in the first request even for an agent that
 * knows nothing about memdir. The agent loads its own CLAUDE.md files, so only the index is
 * added here. `null` when auto memory is off. Creates the memory dir (the rules say it exists).
 * Within the hook limit (docs/design.md#hook-context-limit): a long index is cut, with its path.
 *
 * @example
 * const context = await sessionStartContext({ config, location });
 */
export async function sessionStartContext(options: SessionStartOptions): Promise<string | null> {
  const rules = await loadMemoryRules({ config: options.config, location: options.location });
  if (rules === null) return null;
  const index = await readIndex(options.location.memoryDir);
  // Shown among the user's instructions: a line that reads as one is left out (src/memdir/trust/withhold.ts).
  const indexText =
    index.exists && index.content.trim() !== ""
      ? await indexWithoutInstructions(index.content)
      : "(no memories saved yet)";
  const userContext = formatUserContext(
    [
      {
        path: index.path,
        type: "AutoMem",
        content: indexText,
        bytes: Buffer.byteLength(indexText, "utf8"),
        imports: [],
        truncated: index.truncated,
      },
    ],
    { now: options.now },
  );
  const waiting = await inboxLine(options);
  return fitHookContext([
    { text: rules },
    // Before the index: a long index is cut at the hook limit, this one line must not be.
    ...(waiting ? [{ text: waiting }] : []),
    { text: userContext, path: index.path },
  ]);
}

/**
 * One line when proposals wait for review (docs/design.md#the-inbox): `3 memories wait for
 * review: memdir inbox`. Old proposals expire here too (recorded in the history). Never fails the hook.
 */
export async function inboxLine(options: SessionStartOptions): Promise<string | null> {
  try {
    // The folder is read once; the inbox module (expiry, history, the writer behind it) loads
    // only when a proposal is pending, which most session starts have none of (docs/design.md#the-prompt-hook-process).
    const proposals = await listProposals(options.location.memoryDir);
    if (!proposals.some(isPending)) return null;
    const { inboxOf, waitingMemoryCount } = await import("../dream/inbox.ts");
    const pending = await inboxOf(options.location.memoryDir, proposals, {
      now: options.now,
      expiryDays: options.config.inboxExpiryDays,
    });
    const count = waitingMemoryCount(pending);
    if (count === 0) return null;
    return `${count} ${count === 1 ? "memory waits" : "memories wait"} for review: memdir inbox`;
  } catch {
    return null;
  }
}

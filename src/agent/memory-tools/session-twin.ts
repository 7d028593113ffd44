import { parseFrontmatter } from "../../memdir/format/frontmatter.ts";
import { readRegularText } from "../../memdir/fs/regular-file.ts";
import type { Memdir } from "../../memdir/instance.ts";
import { scanHeaders } from "../../memdir/scan/scan.ts";
import { provenanceOf } from "../../memdir/trust/provenance.ts";
import { comparable, compareComparable, containment } from "../../recall/duplicate-test.ts";
import { savedAtMs } from "../../types.ts";

/**
 * The share of the shorter memory's words the other must hold for two saves of one session to be
 * one request said twice (docs/design.md#one-explicit-save): the prompt hook saves the user's own
 * words ("the staging database listens on port 5433"), the model then saves the same with a
 * description and a "Why:" line of its own. Consolidation's near-duplicate test (Jaccard over all
 * words) misses that pair; inside one session, a save whose words are nearly all in a memory saved
 * minutes before is that memory again. The same value consolidation asks of two bodies under one
 * description.
 */
const SESSION_TWIN_CONTAINMENT = 0.9;
/** Fewer words than this share most of them by chance ("use pnpm" / "use npm"). */
const MIN_WORDS = 4;

/**
 * How far back a save looks even when the session's start is later: a host may start its MCP
 * server lazily, at the model's first tool call (opencode does), after the prompt hook already
 * saved the turn's "remember …". The hook's save and the model's call come in one turn, seconds to
 * a minute or two apart; ten minutes covers a slow turn on a busy machine.
 */
export const SAME_TURN_MS = 10 * 60_000;

/** Where a session's saves begin for {@link findSessionTwin}: its start, or one turn back from now if earlier. */
export function sessionWindowStart(sessionStartedMs: number, nowMs: number): number {
  return Math.min(sessionStartedMs, nowMs - SAME_TURN_MS);
}

/** A memory saved in this session that already says what a save would add. */
export interface SessionTwin {
  file: string;
  path: string;
  description: string | null;
  /** Who saved it (`source` of its provenance: `user` for the prompt hook's "remember …"). */
  savedBy: string | null;
}

/**
 * The memory, saved since `sinceMs`, that already says `memory` — the same text, a near-duplicate,
 * or one holding nearly all of its words (or all of whose words it holds) — or null. Memories saved
 * before the session are left to `memory_update` and consolidation: only a repeat within the
 * session is certain to be the same request.
 */
export async function findSessionTwin(
  memoryDir: string,
  memory: { description: string; body: string },
  sinceMs: number,
  memdir?: Memdir,
): Promise<SessionTwin | null> {
  const headers = memdir ? await memdir.scan() : await scanHeaders(memoryDir);
  const recent = headers.filter((header) => savedAtMs(header) >= sinceMs);
  if (recent.length === 0) return null;
  const wanted = comparable(memory);
  for (const header of recent) {
    const text = await readRegularText(header.path).catch(() => null);
    if (text === null) continue;
    const parsed = parseFrontmatter(text);
    const other = comparable({ description: parsed.description ?? "", body: parsed.body });
    const same =
      compareComparable(wanted, other) !== null ||
      (Math.min(wanted.allWords.size, other.allWords.size) >= MIN_WORDS &&
        containment(wanted.allWords, other.allWords) >= SESSION_TWIN_CONTAINMENT);
    if (!same) continue;
    return {
      file: header.file,
      path: header.path,
      description: parsed.description,
      savedBy: provenanceOf(parsed.data).source,
    };
  }
  return null;
}

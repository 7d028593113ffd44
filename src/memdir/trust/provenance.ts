import { metadataOf } from "../format/frontmatter.ts";

/**
 * Provenance (docs/design.md#provenance): who wrote a memory's current text, recorded in its
 * frontmatter as `source:` (and `session:` when the session is known), so a user can see and
 * filter what was written for them (`memdir list --source extraction`).
 */
export type MemorySource =
  | "user"
  | "cli"
  | "agent"
  | "extraction"
  | "consolidation"
  | "mcp"
  | "sync"
  | "import";

export const MEMORY_SOURCES: readonly MemorySource[] = [
  "user",
  "cli",
  "agent",
  "extraction",
  "consolidation",
  "mcp",
  "sync",
  "import",
];

/**
 * The writers no one asked for at the moment they write: background extraction, consolidation,
 * a teammate's memory synced in, and memories imported from another tool (`memdir import`: the
 * user asked for the import, not for each of the hundreds of texts in it). Their instruction-like text waits in the inbox (docs/design.md#quarantine),
 * and `memoryMode: review` turns all their writes into proposals.
 */
export const AUTOMATIC_SOURCES: readonly MemorySource[] = ["extraction", "consolidation", "sync", "import"];

/** True for a source in {@link AUTOMATIC_SOURCES}. */
export function isAutomaticSource(source: string | undefined | null): boolean {
  return (AUTOMATIC_SOURCES as readonly string[]).includes(source ?? "");
}

/** True when `value` is one of {@link MEMORY_SOURCES}. */
export function isMemorySource(value: unknown): value is MemorySource {
  return typeof value === "string" && (MEMORY_SOURCES as readonly string[]).includes(value);
}

/** Who is writing, passed to the single writer; without one a write is treated as explicit. */
export interface WriteOrigin {
  source: MemorySource;
  /** The session id, when known (a transcript's stem, the agent session's id). */
  session?: string;
  /** The project root anchors resolve against (default: the memory dir's project marker). */
  projectRoot?: string | null;
  /**
   * The write goes into a scratch copy that becomes a proposal as a whole (`memoryMode: review`,
   * `dream --propose`): instruction-like text is then named in the proposal's reason instead of
   * being held on its own.
   */
  proposing?: boolean;
  /**
   * A model's second opinion on a doubtful quarantine finding ({@link isDoubtful}), when memdir is
   * configured for a model (docs/design.md#quarantine). It may clear a doubtful text of an
   * automatic writer; it is never asked about text that hid its words or mixes intents, and
   * no answer (offline, a failure) keeps the rules' verdict.
   */
  secondOpinion?: (text: string, findings: string) => Promise<{ hostile: boolean; reason: string } | null>;
}

/** A model's verdict on text the rules found instruction-like: `hostile` false clears it. Null: no verdict. */
export type QuarantineSecondOpinion = NonNullable<WriteOrigin["secondOpinion"]>;

/**
 * `source` and `session` of a frontmatter, when they are there: top level (where memdir writes
 * them), else under Claude Code's `metadata:` map, as the memory's type is read.
 */
export function provenanceOf(data: Record<string, unknown>): {
  source: string | null;
  session: string | null;
} {
  const metadata = metadataOf(data);
  const given = (key: string) => data[key] ?? metadata?.[key];
  const rawSource = given("source");
  const rawSession = given("session");
  const source = typeof rawSource === "string" && rawSource.trim() !== "" ? rawSource.trim() : null;
  const session =
    typeof rawSession === "string" && rawSession.trim() !== ""
      ? rawSession.trim()
      : typeof rawSession === "number"
        ? String(rawSession)
        : null;
  return { source, session };
}

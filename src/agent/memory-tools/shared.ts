import { z } from "zod";
import { isoTime } from "../../memdir/scan/scan.ts";
import { memoryAge } from "../../recall/surface.ts";
import { MEMORY_TYPES, savedAtMs } from "../../types.ts";

/** A memory type in tool input: one of the four (docs/design.md#memory-types). */
export const memoryTypeSchema = z.enum(MEMORY_TYPES);

/** A memory file name in tool input: relative to the memory dir, checked against escapes before use. */
export const memoryFileSchema = z
  .string()
  .min(1)
  .describe('Memory file, relative to the memory directory, e.g. "feedback-real-database.md"');

/** What every tool says about one memory: where it is, what it is, how old. */
export const memorySummarySchema = z.object({
  file: z.string().describe("Path relative to the memory directory"),
  path: z.string().describe("Absolute path on disk"),
  type: z
    .string()
    .nullable()
    .describe("user, feedback, project or reference; null when the frontmatter lacks it"),
  description: z
    .string()
    .nullable()
    .describe("When the memory is useful; null when the frontmatter lacks it"),
  savedAt: z.string().describe("When it was last saved (its `modified`, else the file time), ISO 8601"),
  age: z.string().describe('How old the memory is: "today", "yesterday" or "N days ago"'),
});
export type MemorySummary = z.infer<typeof memorySummarySchema>;

/** The summary of one memory from what the scan (or a read) learned about it. */
export function memorySummary(
  memory: {
    file: string;
    path: string;
    type: string | null;
    description: string | null;
    mtimeMs: number;
    modifiedMs?: number | null;
  },
  now: number,
): MemorySummary {
  return {
    file: memory.file,
    path: memory.path,
    type: memory.type,
    description: memory.description,
    savedAt: isoTime(savedAtMs(memory)),
    age: memoryAge(savedAtMs(memory), now),
  };
}

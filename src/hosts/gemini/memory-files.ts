import path from "node:path";

/**
 * Where Gemini CLI's `save_memory` keeps what it saves: bullets under `## Gemini Added Memories`
 * in the user's context file `~/.gemini/GEMINI.md` (docs/import.md#gemini). `memdir import gemini`
 * reads them.
 */
export const GEMINI_ADDED_MEMORIES_HEADING = "Gemini Added Memories";

/** The user's context file that holds them, under `home`. */
export function geminiContextFile(home: string): string {
  return path.join(home, ".gemini", "GEMINI.md");
}

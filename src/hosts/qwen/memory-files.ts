import path from "node:path";
import { sanitizeProjectPath } from "../../memdir/location/paths.ts";

/**
 * Qwen Code's `save_memory` keeps its bullets under `## Qwen Added Memories` in `~/.qwen/QWEN.md`
 * (docs/import.md#qwen); `memdir import qwen` reads them.
 */
export const QWEN_ADDED_MEMORIES_HEADING = "Qwen Added Memories";

/**
 * Where Qwen Code keeps memory for `projectRoot` and its user under `home`, in reading order:
 * `QWEN.md`, its managed auto memory shared by all projects (`memories/`), per project in
 * `projects/<sanitized git root>/memory/`, and `<project>/.qwen/memory/` when it keeps memory locally.
 */
export function qwenMemoryPlaces(home: string, projectRoot: string | null | undefined): string[] {
  const qwenDir = path.join(home, ".qwen");
  return [
    path.join(qwenDir, "QWEN.md"),
    path.join(qwenDir, "memories"),
    ...(projectRoot
      ? [
          path.join(qwenDir, "projects", sanitizeProjectPath(projectRoot), "memory"),
          path.join(projectRoot, ".qwen", "memory"),
        ]
      : []),
  ];
}

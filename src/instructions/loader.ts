import path from "node:path";
import { getMemoryFiles, type InstructionFile, type MemoryFilesOptions } from "./files.ts";

/** A session's view of its instruction files: read once, then served from memory. */
export interface InstructionLoader {
  /** The files for these options; the first call reads them, later calls with the same options reuse that read. */
  getMemoryFiles(options: MemoryFilesOptions): Promise<InstructionFile[]>;
  /** Forgets what was read, so the next call reads the disk again (e.g. after `/clear` or compaction). */
  clear(): void;
}

/**
 * Memoizes {@link getMemoryFiles} for one session (docs/design.md#instruction-files): an agent asks for its instruction
 * files at every model call, but edits made mid-session show up only in the next session. Create
 * one loader per session; a new loader reads fresh. A failed read is not cached.
 *
 * @example
 * const session = createInstructionLoader();
 * const files = await session.getMemoryFiles({ config, cwd });
 */
export function createInstructionLoader(): InstructionLoader {
  const cache = new Map<string, Promise<InstructionFile[]>>();
  return {
    getMemoryFiles(options) {
      const key = cacheKey(options);
      const cached = cache.get(key);
      if (cached) return cached;
      const pending = getMemoryFiles(options);
      cache.set(key, pending);
      pending.catch(() => cache.delete(key));
      return pending;
    },
    clear() {
      cache.clear();
    },
  };
}

function cacheKey(options: MemoryFilesOptions): string {
  const { config } = options;
  const cwd = path.resolve(options.cwd ?? config.cwd);
  return JSON.stringify([
    cwd,
    options.home ?? config.home,
    options.root ?? config.root,
    (options.addDirs ?? []).map((dir) => path.resolve(cwd, dir)),
    options.managedDir ?? null,
    options.memoryDir ?? null,
    config.autoMemory,
    config.teamMemory,
  ]);
}

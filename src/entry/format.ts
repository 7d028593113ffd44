/**
 * `memdir/format` — the memory directory itself: the on-disk format (frontmatter, `MEMORY.md`, the
 * load limits, the manifest line), safe paths, secret detection, the raw-text writer for agent
 * tools, repair (`memdir doctor`) and moving a memory directory (`memdir migrate`).
 *
 * @example
 * import { parseFrontmatter, readIndex } from "memdir/format";
 * const { entries, truncated } = await readIndex(memoryDir);
 */

export { type DoctorIssue, diagnoseMemoryDir, repairMemoryDir } from "../memdir/doctor.ts";
export {
  type FrontmatterIssue,
  type ParsedMemory,
  parseFrontmatter,
  serializeMemory,
} from "../memdir/frontmatter.ts";
export {
  formatIndexLine,
  INDEX_MAX_BYTES,
  INDEX_MAX_LINES,
  type IndexEntry,
  type IndexLimit,
  type IndexRead,
  parseIndex,
  readIndex,
} from "../memdir/index-file.ts";
export type { MemdirCacheMode, MemdirStats } from "../memdir/instance.ts";
export {
  type LinkNote,
  linkNames,
  linkResolver,
  type MemoryLink,
  resolveLinks,
  unresolvedLinks,
} from "../memdir/links.ts";
export type { LockOptions } from "../memdir/lock.ts";
export {
  agentMemoryDir,
  ensureMemoryDir,
  findOrphanedMemoryDirs,
  findProjectRoot,
  type MigrateMemoryOptions,
  migrateMemory,
  type OrphanedMemoryDir,
  sanitizeProjectPath,
} from "../memdir/paths.ts";
export type { CacheLog, PersistedCacheStats } from "../memdir/persisted-cache.ts";
export {
  isAutomaticSource,
  MEMORY_SOURCES,
  type MemorySource,
  provenanceOf,
  type WriteOrigin,
} from "../memdir/provenance.ts";
export { findInstructions, type QuarantineFinding } from "../memdir/quarantine.ts";
export type { QuarantineIntent } from "../memdir/quarantine-rules.ts";
export { MEMORY_MAX_BYTES, MEMORY_MAX_LINES } from "../memdir/read.ts";
export {
  assertInsideMemoryDir,
  resolveInsideMemoryDir,
  type SafePathOptions,
  type SafePathResult,
  type UnsafePathRule,
} from "../memdir/safe-path.ts";
export type { ScanState } from "../memdir/scan.ts";
export { formatManifest, HeaderCache, type HeaderCacheOptions, manifestLine } from "../memdir/scan.ts";
export type { ScanWatchStats } from "../memdir/scan-watch-types.ts";
export { assertNoSecrets, findSecrets, type SecretFinding } from "../memdir/secrets.ts";
export {
  type Anchor,
  type AnchorChange,
  checkAnchors,
  findAnchors,
  findStaleMemories,
  memoryAnchorChanges,
  type StaleMemory,
} from "../memdir/stale.ts";
export { type WriteOptions, writeMemoryText } from "../memdir/write.ts";
export { isMemoryType, savedAtMs } from "../types.ts";

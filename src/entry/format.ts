/**
 * `memdir/format` — the memory directory itself: the on-disk format (frontmatter, `MEMORY.md`, the
 * load limits, the manifest line), safe paths, secret detection, the raw-text writer for agent
 * tools, repair (`memdir doctor`) and moving a memory directory (`memdir migrate`).
 *
 * @example
 * import { readIndex } from "memdir/format";
 * const { content, truncated } = await readIndex(memoryDir);
 */

export type { CacheLog, PersistedCacheStats } from "../memdir/cache/persisted-cache.ts";
export {
  type FrontmatterIssue,
  type ParsedMemory,
  parseFrontmatter,
  serializeMemory,
} from "../memdir/format/frontmatter.ts";
export {
  formatIndexLine,
  INDEX_MAX_BYTES,
  INDEX_MAX_LINES,
  type IndexEntry,
  type IndexLimit,
  type IndexRead,
  parseIndex,
  readIndex,
} from "../memdir/format/index-file.ts";
export type { LockOptions } from "../memdir/fs/lock.ts";
export { MEMORY_MAX_BYTES, MEMORY_MAX_LINES } from "../memdir/fs/read.ts";
export {
  assertInsideMemoryDir,
  resolveInsideMemoryDir,
  type SafePathOptions,
  type SafePathResult,
  type UnsafePathRule,
} from "../memdir/fs/safe-path.ts";
export {
  type DiagnoseOptions,
  type DoctorCheck,
  type DoctorIssue,
  diagnoseMemoryDir,
  repairMemoryDir,
} from "../memdir/health/doctor.ts";
export { findStaleMemories, memoryAnchorChanges, type StaleMemory } from "../memdir/health/stale.ts";
export type { MemdirCacheMode, MemdirStats } from "../memdir/instance.ts";
export {
  agentMemoryDir,
  ensureMemoryDir,
  findOrphanedMemoryDirs,
  findProjectRoot,
  type MigrateMemoryOptions,
  migrateMemory,
  type OrphanedMemoryDir,
  sanitizeProjectPath,
} from "../memdir/location/paths.ts";
export { HeaderCache, type HeaderCacheOptions } from "../memdir/scan/header-cache.ts";
export type { ScanState } from "../memdir/scan/instance-core.ts";
export {
  type LinkNote,
  linkNames,
  linkResolver,
  type MemoryLink,
  resolveLinks,
  unresolvedLinks,
} from "../memdir/scan/links.ts";
export { formatManifest, manifestLine } from "../memdir/scan/scan.ts";
export type { ScanWatchStats } from "../memdir/scan/scan-watch-types.ts";
export { type Anchor, type AnchorChange, checkAnchors, findAnchors } from "../memdir/trust/anchors.ts";
export {
  isAutomaticSource,
  MEMORY_SOURCES,
  type MemorySource,
  provenanceOf,
  type WriteOrigin,
} from "../memdir/trust/provenance.ts";
export { findInstructions, type QuarantineFinding } from "../memdir/trust/quarantine.ts";
export type { QuarantineIntent } from "../memdir/trust/quarantine-rules.ts";
export { assertNoSecrets, findSecrets, type SecretFinding } from "../memdir/trust/secrets.ts";
export { type WriteOptions, writeMemoryText } from "../memdir/write/write.ts";
export { isMemoryType, type ProgressSink, savedAtMs } from "../types.ts";

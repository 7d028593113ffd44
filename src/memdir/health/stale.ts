import { parseFrontmatter } from "../format/frontmatter.ts";
import { readRegularText } from "../fs/regular-file.ts";
import { scanHeaders } from "../scan/scan.ts";
import { type AnchorChange, anchorRoot, anchorsOf, checkAnchors } from "../trust/anchors.ts";

/** A memory whose anchors no longer match the project, with what changed. */
export interface StaleMemory {
  file: string;
  path: string;
  changes: AnchorChange[];
}

/**
 * The anchor changes of one memory text (docs/design.md#stale-anchors): its frontmatter's
 * `anchors:` checked against `projectRoot`. The function a UI flags stale memories with.
 *
 * @example
 * const changes = await memoryAnchorChanges(text, "/repo"); // [{change: "vanished", message: "src/auth/login.ts no longer exists"}]
 */
export async function memoryAnchorChanges(
  text: string,
  projectRoot: string,
  options: { vanishedOnly?: boolean } = {},
): Promise<AnchorChange[]> {
  const anchors = anchorsOf(parseFrontmatter(text).data);
  return anchors.length === 0 ? [] : checkAnchors(anchors, projectRoot, options);
}

/**
 * Every memory of `memoryDir` whose anchors vanished or changed (`memdir doctor --stale`, the
 * consolidation's stale-first list), in scan order. The project root is `projectRoot`, else the
 * memory dir's project marker; with neither there is nothing to check against and the list is empty.
 *
 * @example
 * for (const stale of await findStaleMemories(memoryDir)) console.log(stale.file, stale.changes[0].message);
 */
export async function findStaleMemories(
  memoryDir: string,
  options: { projectRoot?: string | null; vanishedOnly?: boolean } = {},
): Promise<StaleMemory[]> {
  const projectRoot = await anchorRoot(memoryDir, options.projectRoot);
  if (projectRoot === null) return [];
  const stale: StaleMemory[] = [];
  for (const header of await scanHeaders(memoryDir, { cache: null })) {
    const text = await readRegularText(header.path).catch(() => null);
    if (text === null || !/^anchors:/m.test(text)) continue;
    const changes = await memoryAnchorChanges(text, projectRoot, options);
    if (changes.length > 0) stale.push({ file: header.file, path: header.path, changes });
  }
  return stale;
}

import { parseFrontmatter } from "../../memdir/frontmatter.ts";
import type { Memdir } from "../../memdir/instance.ts";
import { coreOf } from "../../memdir/instance-core.ts";
import { isMemorySource, MEMORY_SOURCES, provenanceOf } from "../../memdir/provenance.ts";
import { readRegularText } from "../../memdir/regular-file.ts";
import { isoTime, manifestLine } from "../../memdir/scan.ts";
import { type MemoryHeader, savedAtMs } from "../../types.ts";
import { type CommonOptions, type RegisterCommand, usageError, withCommonOptions } from "../common.ts";
import { locationFromOptions, memdirForCommand } from "../location.ts";
import { jsonText } from "../output.ts";

/**
 * `memdir list`: every memory, newest first, as the header scan sees it (first 30 lines).
 * Human output is the manifest the selector gets; `--json` is
 * `[{file, path, type, description, mtime, source, session}]` with `null` for what the scan did
 * not find (`mtime` is the file's; the manifest shows the saved time, a valid frontmatter
 * `modified` first, and `memdir show --json` has `modified` and `name`; `source` and `session`
 * are the provenance, docs/design.md#provenance). `--source <source>` lists only memories written by it.
 */
export const registerListCommand: RegisterCommand = (program, context) => {
  withCommonOptions(
    program
      .command("list")
      .description("list all memories, newest first")
      .option("--source <source>", `only memories written by this source (${MEMORY_SOURCES.join(", ")})`),
  ).action(async (options: CommonOptions & { source?: string }) => {
    if (options.source !== undefined && !isMemorySource(options.source))
      throw usageError(`list: --source is one of ${MEMORY_SOURCES.join(", ")}`);
    const location = await locationFromOptions(options, context);
    const memdir = memdirForCommand(location, context);
    const found = await memdir.scan();
    const rendering = `${options.json === true}\0${options.source ?? ""}\0${location.memoryDir}`;
    const last = memdir.extensions.get(LAST_LISTING) as LastListing | undefined;
    if (last !== undefined && last.rendering === rendering && sameHeaders(last.headers, found)) {
      context.io.stdout(last.text);
      return;
    }
    const text = await renderListing(found, options, location.memoryDir, memdir);
    memdir.extensions.set(LAST_LISTING, { rendering, headers: found, text });
    context.io.stdout(text);
  });
};

/**
 * The last listing an instance printed (the memory helper's instances live between requests):
 * the scan hands back the same header object for a file that did not change, so the same header
 * objects, in the same order, list the same way. Rendering 20,000 memories as JSON (their ISO
 * times, the provenance look-ups, the 10 MB string and its garbage) cost the helper ~60 ms of
 * its ~150 ms per `list --json` (profile at load ~5, issue 17); comparing the headers costs
 * microseconds.
 */
const LAST_LISTING = Symbol("memdir.last-listing");

interface LastListing {
  rendering: string;
  headers: readonly MemoryHeader[];
  text: string;
}

function sameHeaders(a: readonly MemoryHeader[], b: readonly MemoryHeader[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** What `memdir list` prints for the headers `found` (see the command's description). */
async function renderListing(
  found: readonly MemoryHeader[],
  options: CommonOptions & { source?: string },
  memoryDir: string,
  memdir: Memdir,
): Promise<string> {
  // Newest first by saved time (`modified`, else mtime): what the listed times say.
  const scanned = [...found].sort((a, b) => savedAtMs(b) - savedAtMs(a));
  const withProvenance = options.json || options.source !== undefined;
  // The scan cached each header's provenance with it (and in the cache file): a file is read
  // again only when its entry is gone (issue 17: list read and parsed every file); no promise
  // per memory when none is.
  const listed: { header: MemoryHeader; source: string | null; session: string | null }[] = [];
  for (const header of scanned) {
    const provenance = withProvenance
      ? (coreOf(memdir).headerCache?.provenance(header) ?? (await provenanceOfFile(header)))
      : NO_PROVENANCE;
    listed.push({ header, ...provenance });
  }
  const kept = options.source === undefined ? listed : listed.filter((m) => m.source === options.source);
  const headers = kept.map((m) => m.header);
  if (options.json)
    return jsonText(
      kept.map(({ header: h, source, session }) => ({
        file: h.file,
        path: h.path,
        type: h.type,
        description: h.description,
        mtime: isoTime(h.mtimeMs),
        source,
        session,
      })),
    );
  if (headers.length === 0) {
    const from = options.source === undefined ? "" : ` from ${options.source}`;
    return `no memories${from} in ${memoryDir}\n`;
  }
  return `${headers.map(manifestLine).join("\n")}\n`;
}

const NO_PROVENANCE: { source: null; session: null } = { source: null, session: null };

/** A memory's `source` and `session`, from its frontmatter (within the header scan's 30 lines). */
async function provenanceOfFile(
  header: MemoryHeader,
): Promise<{ source: string | null; session: string | null }> {
  const text = await readRegularText(header.path).catch(() => "");
  return provenanceOf(parseFrontmatter(text, { maxLines: 30 }).data);
}

import { Option } from "commander";
import { parseFrontmatter } from "../../../memdir/format/frontmatter.ts";
import { readRegularText } from "../../../memdir/fs/regular-file.ts";
import type { Memdir } from "../../../memdir/instance.ts";
import { coreOf } from "../../../memdir/scan/instance-core.ts";
import { isoTime, manifestLineWithTime } from "../../../memdir/scan/scan.ts";
import { isMemorySource, MEMORY_SOURCES, provenanceOf } from "../../../memdir/trust/provenance.ts";
import { MEMORY_TYPES, type MemoryHeader, savedAtMs } from "../../../types.ts";
import {
  type CommonOptions,
  type RegisterCommand,
  usageError,
  withCommonOptions,
} from "../../support/common.ts";
import { locationFromOptions, memdirForCommand } from "../../support/location.ts";
import { jsonText, printable } from "../../support/output.ts";
import { relativeAge } from "../../support/relative-age.ts";
import { sinceTime } from "../../support/since.ts";

interface ListOptions extends CommonOptions {
  source?: string;
  type?: string;
  session?: string;
  since?: string;
  limit?: string;
}

/** What a listing keeps: the filters of {@link ListOptions}, checked and resolved. */
interface ListFilter {
  type?: string;
  source?: string;
  session?: string;
  /** Saved at or after this time (ms). */
  sinceMs?: number;
  limit?: number;
}

const MINUTE = 60_000;

/**
 * `memdir list`: every memory, newest first (by saved time: a valid frontmatter `modified`, else
 * the file's mtime), as the header scan sees it (first 30 lines). Human output is the manifest
 * the selector gets with each time as an age ("2 days ago"); `--json` is
 * `[{file, path, type, description, mtime, source, session}]` with `null` for what the scan did
 * not find (`mtime` is the file's, ISO; `memdir show --json` has `modified` and `name`; `source`
 * and `session` are the provenance, docs/design.md#provenance). Filters: `--type`, `--source`,
 * `--session`, `--since` (a date, an age, today/yesterday: {@link sinceTime}); `--limit N` keeps
 * the newest N of what they let through.
 */
export const registerListCommand: RegisterCommand = (program, context) => {
  withCommonOptions(
    program
      .command("list")
      .description("list all memories, newest first")
      .addOption(new Option("--type <type>", "only memories of this type").choices(MEMORY_TYPES))
      .option("--source <source>", `only memories written by this source (${MEMORY_SOURCES.join(", ")})`)
      .option("--session <id>", "only memories written in this session (their session: provenance)")
      .option(
        "--since <when>",
        "only memories saved since: a date (2026-11-01), an age (7d, 2w, 12h), today, yesterday",
      )
      .option("--limit <n>", "at most this many (the newest)"),
  ).action(async (options: ListOptions) => {
    const now = context.now();
    const filter = listFilter(options, now);
    const location = await locationFromOptions(options, context);
    const memdir = memdirForCommand(location, context, options);
    const found = await memdir.scan();
    // Ages are counted from the start of the minute, so a listing stays the same within it and
    // the helper's kept one (below) is what a fresh one would print.
    const ageFrom = Math.floor(now / MINUTE) * MINUTE;
    const rendering = [
      options.json === true,
      options.json ? "" : ageFrom,
      filter.type,
      filter.source,
      filter.session,
      filter.sinceMs,
      filter.limit,
      location.memoryDir,
    ].join("\0");
    const last = memdir.extensions.get(LAST_LISTING) as LastListing | undefined;
    if (last !== undefined && last.rendering === rendering && sameHeaders(last.headers, found)) {
      context.io.stdout(last.text);
      return;
    }
    const text = await renderListing(
      found,
      options.json === true,
      filter,
      ageFrom,
      location.memoryDir,
      memdir,
    );
    memdir.extensions.set(LAST_LISTING, { rendering, headers: found, text });
    context.io.stdout(text);
  });
};

/** The filters `options` ask for, checked (a usage error names the flag and what it takes). */
function listFilter(options: ListOptions, now: number): ListFilter {
  if (options.source !== undefined && !isMemorySource(options.source))
    throw usageError(`list: --source is one of ${MEMORY_SOURCES.join(", ")}`);
  let limit: number | undefined;
  if (options.limit !== undefined) {
    limit = /^\s*\d+\s*$/.test(options.limit) ? Number(options.limit) : Number.NaN;
    if (!Number.isSafeInteger(limit) || limit < 1)
      throw usageError(
        `list: --limit takes a whole number of at least 1, not ${JSON.stringify(options.limit)}`,
      );
  }
  let sinceMs: number | undefined;
  try {
    sinceMs = options.since === undefined ? undefined : sinceTime(options.since, now);
  } catch (error) {
    throw usageError(`list: ${(error as Error).message.replace(/^memdir: /, "")}`);
  }
  return {
    type: options.type,
    source: options.source,
    session: options.session,
    sinceMs,
    limit,
  };
}

/**
 * The last listing an instance printed (the memory helper's instances live between requests):
 * the scan hands back the same header object for a file that did not change, so the same header
 * objects, in the same order, list the same way. Rendering 20,000 memories as JSON (their ISO
 * times, the provenance look-ups, the 10 MB string and its garbage) cost the helper ~60 ms of
 * its ~150 ms per `list --json` (profile at load ~5, docs/design.md#caches-and-watchers); comparing the headers costs
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
  json: boolean,
  filter: ListFilter,
  ageFrom: number,
  memoryDir: string,
  memdir: Memdir,
): Promise<string> {
  // Newest first by saved time (`modified`, else mtime): what the listed times say.
  const scanned = [...found]
    .filter(
      (h) =>
        (filter.type === undefined || h.type === filter.type) &&
        (filter.sinceMs === undefined || savedAtMs(h) >= filter.sinceMs),
    )
    .sort((a, b) => savedAtMs(b) - savedAtMs(a));
  const byProvenance = filter.source !== undefined || filter.session !== undefined;
  const withProvenance = json || byProvenance;
  // The scan cached each header's provenance with it (and in the cache file): a file is read
  // again only when its entry is gone (docs/design.md#caches-and-watchers: list read and parsed every file); no promise
  // per memory when none is.
  const kept: { header: MemoryHeader; source: string | null; session: string | null }[] = [];
  for (const header of scanned) {
    if (filter.limit !== undefined && kept.length >= filter.limit) break;
    const provenance = withProvenance
      ? (coreOf(memdir).headerCache?.provenance(header) ?? (await provenanceOfFile(header)))
      : NO_PROVENANCE;
    if (filter.source !== undefined && provenance.source !== filter.source) continue;
    if (filter.session !== undefined && provenance.session !== filter.session) continue;
    kept.push({ header, ...provenance });
  }
  if (json)
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
  if (kept.length === 0) {
    const words = filterWords(filter);
    // A first look in a new project: say how memory gets there, not only that there is none.
    const next =
      words === ""
        ? '; save one with memdir remember "…" (or memdir add), or let an agent save them (memdir setup <agent>)'
        : "";
    return `no memories${words} in ${memoryDir}${next}\n`;
  }
  // A description written by hand may hold an ESC sequence: printed escaped, never acted on.
  return printable(
    `${kept.map(({ header }) => manifestLineWithTime(header, relativeAge(savedAtMs(header), ageFrom))).join("\n")}\n`,
  );
}

/** The filters in words, for "no memories … in DIR": " of type feedback from extraction". */
function filterWords(filter: ListFilter): string {
  const words = [
    filter.type === undefined ? "" : ` of type ${filter.type}`,
    filter.source === undefined ? "" : ` from ${filter.source}`,
    filter.session === undefined ? "" : ` of session ${filter.session}`,
    filter.sinceMs === undefined ? "" : ` saved since ${new Date(filter.sinceMs).toISOString()}`,
  ];
  return words.join("");
}

const NO_PROVENANCE: { source: null; session: null } = { source: null, session: null };

/** A memory's `source` and `session`, from its frontmatter (within the header scan's 30 lines). */
async function provenanceOfFile(
  header: MemoryHeader,
): Promise<{ source: string | null; session: string | null }> {
  const text = await readRegularText(header.path).catch(() => "");
  return provenanceOf(parseFrontmatter(text, { maxLines: 30 }).data);
}

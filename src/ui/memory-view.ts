import path from "node:path";
import { recordChange } from "../dream/history.ts";
import { isMemdirError, MemdirError } from "../errors.ts";
import { parseFrontmatter } from "../memdir/format/frontmatter.ts";
import { INDEX_FILE, parseIndex, readIndex } from "../memdir/format/index-file.ts";
import { memoryVersion } from "../memdir/format/memory-version.ts";
import { readRegularText } from "../memdir/fs/regular-file.ts";
import { assertInsideMemoryDir, memoryFileRefusal } from "../memdir/fs/safe-path.ts";
import type { Memdir } from "../memdir/instance.ts";
import { linkNames, linkResolver } from "../memdir/scan/links.ts";
import { isoTime } from "../memdir/scan/scan.ts";
import { type Anchor, anchorsOf } from "../memdir/trust/anchors.ts";
import { provenanceOf } from "../memdir/trust/provenance.ts";
import { removeMemory, saveMemory } from "../memdir/write/write.ts";
import type { Selector } from "../recall/selector.ts";
import { type MemoryHeader, savedAtMs } from "../types.ts";
import { type Flag, memoryFlags, memorySource } from "./flags.ts";
import { renderMarkdown } from "./markdown.ts";

/** What the memories page asks for: filters, a search, a page. */
export interface MemoryListQuery {
  type?: string;
  /** A provenance `source:` value, or `none` for memories without one. */
  source?: string;
  /** Saved at or after this time (ISO date or time). */
  since?: string;
  /** Anchored to a project file whose path contains this text (frontmatter `anchors:`). */
  anchor?: string;
  /** Words to search for (ranked by the lexical index); empty: newest first. */
  search?: string;
  /** 1-based. */
  page?: number;
  pageSize?: number;
}

export interface MemoryListItem {
  file: string;
  type: string | null;
  description: string | null;
  /** When it was saved (frontmatter `modified`, else mtime), ISO. */
  savedAt: string;
  source: string | null;
  /** The session that saved it (provenance `session:`), or null. */
  session: string | null;
  /** The project files it is anchored to. */
  anchors: string[];
  flags: Flag[];
}

export interface MemoryList {
  total: number;
  page: number;
  pageSize: number;
  items: MemoryListItem[];
}

export const DEFAULT_PAGE_SIZE = 50;

/** The fields of a memory an edit shows and saves. */
export interface EditedFields {
  type: string | null;
  description: string | null;
  body: string;
}

/**
 * A save refused because the file changed on disk (or was deleted) after the page loaded it:
 * the server answers 409 with both texts, and the page lets the user choose.
 */
export class SaveConflict extends MemdirError {
  constructor(
    message: string,
    readonly details: {
      file: string;
      /** What is on disk now and its version (null: deleted since). */
      current: (EditedFields & { version: string }) | null;
      /** What the save would have written. */
      yours: EditedFields;
    },
  ) {
    super("conflict", message);
  }
}

interface Meta {
  mtimeMs: number;
  size: number;
  frontmatter: Record<string, unknown>;
  /** The `[[name]]` links of the body, as written. */
  links: string[];
}

/**
 * The memories page's view of one memory dir: the instance's header scan (cached, watched) for
 * the list, its lexical index for search, and the single writer for edits and deletions, each
 * recorded in the history so the page (or `memdir undo`) can take it back. Frontmatter beyond
 * the header (provenance, flags) is read per file and kept until the file changes.
 */
export class MemoryView {
  readonly #meta = new Map<string, Meta>();
  /** The full scan under way, and the count of writes made through this view when it started. */
  #scanning: { headers: Promise<MemoryHeader[]>; writes: number } | null = null;
  #writes = 0;

  constructor(
    readonly memdir: Memdir,
    readonly search: Selector,
  ) {}

  get memoryDir(): string {
    return this.memdir.memoryDir;
  }

  /**
   * Every memory's header, newest first. Requests that arrive while a full scan is under way
   * share it (the server's warm-up, the first list and the overview would otherwise each stat
   * 20,000 files, docs/ui.md#at-20000-memories), unless this view wrote since it started: a save
   * or delete is always seen by the list that follows it.
   */
  headers(): Promise<MemoryHeader[]> {
    if (this.#scanning && this.#scanning.writes === this.#writes) return this.#scanning.headers;
    const scanning = {
      headers: this.memdir.scan({ limit: Number.POSITIVE_INFINITY }),
      writes: this.#writes,
    };
    this.#scanning = scanning;
    const done = () => {
      if (this.#scanning === scanning) this.#scanning = null;
    };
    scanning.headers.then(done, done);
    return scanning.headers;
  }

  async #metaOf(header: MemoryHeader): Promise<Meta> {
    const known = this.#meta.get(header.file);
    if (known && known.mtimeMs === header.mtimeMs && known.size === header.size) return known;
    const text = await readRegularText(header.path).catch(() => "");
    const parsed = parseFrontmatter(text);
    const meta = {
      mtimeMs: header.mtimeMs,
      size: header.size,
      frontmatter: parsed.data,
      links: linkNames(parsed.body),
    };
    this.#meta.set(header.file, meta);
    return meta;
  }

  async #item(header: MemoryHeader): Promise<MemoryListItem> {
    const { frontmatter } = await this.#metaOf(header);
    return {
      file: header.file,
      type: header.type,
      description: header.description,
      savedAt: isoTime(savedAtMs(header)),
      ...provenanceOf(frontmatter),
      anchors: anchorsOf(frontmatter).map(anchorLabel),
      flags: await memoryFlags(this.memoryDir, header.file, frontmatter),
    };
  }

  /** The provenance (`source:`, `session:`) of each of `files` that is a memory now. */
  async provenance(
    files: readonly string[],
  ): Promise<Record<string, { source: string | null; session: string | null }>> {
    const wanted = new Set(files);
    const result: Record<string, { source: string | null; session: string | null }> = {};
    for (const header of await this.headers())
      if (wanted.has(header.file))
        result[header.file] = provenanceOf((await this.#metaOf(header)).frontmatter);
    return result;
  }

  /**
   * The overview's figures (docs/ui.md#pages): memories per saved period and type, the mix
   * of sources. Each file's frontmatter is read once and kept, as for the source filter.
   */
  async overview(): Promise<{
    total: number;
    byType: Record<string, number>;
    sources: { source: string | null; count: number }[];
    timeline: {
      unit: "day" | "week" | "month";
      periods: { start: string; counts: Record<string, number> }[];
    };
  }> {
    const headers = await this.headers();
    const byType: Record<string, number> = {};
    const sources = new Map<string | null, number>();
    for (const header of headers) {
      const type = header.type ?? "none";
      byType[type] = (byType[type] ?? 0) + 1;
      const source = memorySource((await this.#metaOf(header)).frontmatter);
      sources.set(source, (sources.get(source) ?? 0) + 1);
    }
    return {
      total: headers.length,
      byType,
      sources: [...sources].map(([source, count]) => ({ source, count })).sort((a, b) => b.count - a.count),
      timeline: savedTimeline(headers),
    };
  }

  /** One page of memories: filtered, then newest first or, with a search, best match first. */
  async list(query: MemoryListQuery): Promise<MemoryList> {
    const pageSize = Math.min(Math.max(1, query.pageSize ?? DEFAULT_PAGE_SIZE), 500);
    const page = Math.max(1, Math.floor(query.page ?? 1));
    let headers = (await this.headers()).filter((header) => !query.type || header.type === query.type);
    if (query.since) {
      const since = Date.parse(query.since);
      if (Number.isNaN(since))
        throw new MemdirError("invalid-input", `ui: "since" must be a date (YYYY-MM-DD), not ${query.since}`);
      headers = headers.filter((header) => savedAtMs(header) >= since);
    }
    if (query.anchor) {
      const wanted = query.anchor;
      const kept: MemoryHeader[] = [];
      for (const header of headers)
        if (anchorsOf((await this.#metaOf(header)).frontmatter).some((a) => a.path.includes(wanted)))
          kept.push(header);
      headers = kept;
    }
    if (query.source) {
      const wanted = query.source === "none" ? null : query.source;
      const kept: MemoryHeader[] = [];
      for (const header of headers)
        if (memorySource((await this.#metaOf(header)).frontmatter) === wanted) kept.push(header);
      headers = kept;
    }
    const words = query.search?.trim() ?? "";
    if (words !== "") {
      const byFile = new Map(headers.map((header) => [header.file, header]));
      const { picks } = await this.search.select({
        query: words,
        headers,
        k: headers.length,
        memoryDir: this.memoryDir,
        memdir: this.memdir,
      });
      headers = picks.flatMap((pick) => byFile.get(pick.file) ?? []);
    } else headers.sort((a, b) => savedAtMs(b) - savedAtMs(a) || a.file.localeCompare(b.file));
    const shown = headers.slice((page - 1) * pageSize, page * pageSize);
    return {
      total: headers.length,
      page,
      pageSize,
      items: await Promise.all(shown.map((h) => this.#item(h))),
    };
  }

  /** One memory, whole: its fields, its body as safe HTML, its index line and flags. */
  async get(file: string): Promise<Record<string, unknown>> {
    const target = await assertInsideMemoryDir(this.memoryDir, file);
    // Memory files only, as the MCP read tool and the writer: `.git/config`, the history's
    // objects and the caches are the memory dir's own state, not a page (docs/ui.md).
    const refusal = memoryFileRefusal(target.file);
    if (refusal) throw new MemdirError("invalid-input", `ui: ${refusal}`);
    const text = await readRegularText(target.path).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === "ENOENT")
        throw new MemdirError("not-found", `ui: no memory ${target.file} in ${this.memoryDir}`);
      throw error;
    });
    const parsed = parseFrontmatter(text);
    return {
      file: target.file,
      // Sent back with a save: the writer refuses it if the file changed since (docs/ui.md).
      version: memoryVersion(text),
      type: parsed.type,
      description: parsed.description,
      body: parsed.body,
      html: renderMarkdown(parsed.body),
      name: typeof parsed.data.name === "string" ? parsed.data.name : null,
      ...provenanceOf(parsed.data),
      anchors: anchorsOf(parsed.data),
      ...(await this.#linksOf(target.file, parsed.body)),
      modified: parsed.modifiedMs === null ? null : isoTime(parsed.modifiedMs),
      flags: await memoryFlags(this.memoryDir, target.file, parsed.data),
      issues: parsed.issues.map((issue) => issue.message),
      indexLine: await this.indexLine(target.file),
    };
  }

  /**
   * The memories `body` links to with `[[name]]` (file null: no such memory yet), and the
   * memories whose links resolve to `file` (docs/design.md#links). The links of every other
   * memory are read once and kept until that file changes.
   */
  async #linksOf(file: string, body: string) {
    const headers = await this.headers();
    const resolve = linkResolver(headers);
    const backlinks: { file: string; description: string | null }[] = [];
    for (const header of headers) {
      if (header.file === file) continue;
      const { links } = await this.#metaOf(header);
      if (links.some((name) => resolve(name)?.file === file))
        backlinks.push({ file: header.file, description: header.description });
    }
    return {
      // The resolver hands back the target's header itself: its description needs no second map.
      links: linkNames(body).map((name) => {
        const target = resolve(name);
        return { name, file: target?.file ?? null, description: target?.description ?? null };
      }),
      backlinks,
    };
  }

  /** The line of `MEMORY.md` that points at `file`, as written there, or null. */
  async indexLine(file: string): Promise<string | null> {
    const index = await readIndex(this.memoryDir);
    const entry = parseIndex(index.raw).find((candidate) => candidate.file === file);
    return entry ? index.raw.split("\n")[entry.lineNumber - 1] : null;
  }

  /**
   * Saves an edit through the single writer (file and index line together; a secret is refused
   * with the writer's message), recorded as a `save` history entry. `version` is the one
   * {@link get} gave: a file changed or deleted since throws {@link SaveConflict}, nothing written.
   */
  async save(input: { file: string; type: string; description: string; body: string; version: string }) {
    const saving = recordChange(
      this.memoryDir,
      { kind: "save", message: `ui: edited ${input.file}`, files: [input.file, INDEX_FILE] },
      () =>
        saveMemory(this.memoryDir, {
          file: input.file,
          type: input.type,
          description: input.description,
          body: input.body,
          replace: true,
          version: input.version,
        }),
    );
    // Counted once the write is over: a scan that started before it ends is not shared after it.
    saving.then(
      () => this.#writes++,
      () => this.#writes++,
    );
    const { result, entry } = await saving.catch(async (error: unknown) => {
      if (!isMemdirError(error, "conflict")) throw error;
      throw new SaveConflict(error.message, {
        file: input.file,
        current: await this.#current(input.file),
        yours: { type: input.type, description: input.description, body: input.body },
      });
    });
    return {
      file: result.file,
      historyId: entry?.id ?? null,
      indexLine: await this.indexLine(result.file),
      ...(result.indexWarning ? { indexWarning: result.indexWarning } : {}),
    };
  }

  /** The fields and version of `file` as on disk now, or null when it is gone. */
  async #current(file: string): Promise<(EditedFields & { version: string }) | null> {
    const target = await assertInsideMemoryDir(this.memoryDir, file);
    const text = await readRegularText(target.path).catch(() => null);
    if (text === null) return null;
    const parsed = parseFrontmatter(text);
    return {
      type: parsed.type,
      description: parsed.description,
      body: parsed.body,
      version: memoryVersion(text),
    };
  }

  /** Deletes a memory and its index line, recorded so that undoing the entry brings both back. */
  async remove(file: string): Promise<{ file: string; historyId: string | null }> {
    const { result, entry } = await recordChange(
      this.memoryDir,
      { kind: "save", message: `ui: deleted ${file}`, files: [file, INDEX_FILE] },
      () => removeMemory(this.memoryDir, file),
    ).finally(() => this.#writes++);
    this.#meta.delete(result.file);
    return { file: path.posix.normalize(result.file), historyId: entry?.id ?? null };
  }
}

/** How an anchor reads in a list: `src/auth/login.ts` or `package.json#build`. */
function anchorLabel(anchor: Anchor): string {
  return anchor.symbol ? `${anchor.path}#${anchor.symbol}` : anchor.path;
}

const DAY_MS = 86_400_000;

/**
 * Memories per period of their saved time and per type, oldest period first: days when they span
 * under a month, weeks under half a year, else months, so the chart keeps a readable number of bars.
 */
export function savedTimeline(headers: readonly MemoryHeader[]) {
  const times = headers.map((header) => savedAtMs(header));
  const span = times.length === 0 ? 0 : Math.max(...times) - Math.min(...times);
  const unit: "day" | "week" | "month" = span < 31 * DAY_MS ? "day" : span < 183 * DAY_MS ? "week" : "month";
  const periodOf = (ms: number): string => {
    const date = new Date(ms);
    if (unit === "month") return `${date.toISOString().slice(0, 7)}-01`;
    const day = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
    // Weeks start on Monday (ISO 8601).
    const start = unit === "week" ? day - ((date.getUTCDay() + 6) % 7) * DAY_MS : day;
    return new Date(start).toISOString().slice(0, 10);
  };
  const periods = new Map<string, Record<string, number>>();
  headers.forEach((header, index) => {
    const period = periodOf(times[index]);
    const counts = periods.get(period) ?? {};
    const type = header.type ?? "none";
    counts[type] = (counts[type] ?? 0) + 1;
    periods.set(period, counts);
  });
  // Every period from the first to the last, empty ones too: the bars keep time's proportions.
  const starts = [...periods.keys()].sort();
  const all: { start: string; counts: Record<string, number> }[] = [];
  for (
    let start = starts[0];
    start !== undefined && start <= starts[starts.length - 1];
    start = nextPeriod(start, unit)
  )
    all.push({ start, counts: periods.get(start) ?? {} });
  return { unit, periods: all };
}

/** The start (`YYYY-MM-DD`) of the period after the one starting at `start`. */
function nextPeriod(start: string, unit: "day" | "week" | "month"): string {
  const date = new Date(`${start}T00:00:00Z`);
  if (unit === "month") date.setUTCMonth(date.getUTCMonth() + 1);
  else date.setUTCDate(date.getUTCDate() + (unit === "week" ? 7 : 1));
  return date.toISOString().slice(0, 10);
}

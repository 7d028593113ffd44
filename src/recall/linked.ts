import { readMemoryCapped } from "../memdir/fs/read.ts";
import { linkResolver } from "../memdir/scan/links.ts";
import { shownContent } from "../memdir/trust/withhold.ts";
import { type MemoryHeader, savedAtMs } from "../types.ts";
import { surfacedMemoryMessage } from "./surface.ts";

/** At most this many linked memories come along with one recall (docs/design.md#links). */
export const MAX_LINKED_MEMORIES = 2;

/** A picked memory's `[[name]]` links, in the order of its text. */
export interface PickLinks {
  file: string;
  names: readonly string[];
}

/** One memory brought along by a link, ready to surface. */
export interface LinkedMemory {
  header: MemoryHeader;
  /** The picked memory whose link brought it. */
  from: string;
  /** The name in its `[[name]]`. */
  name: string;
  truncated: false | "lines" | "bytes";
  message: ReturnType<typeof surfacedMemoryMessage>;
}

/**
 * The memories the picks link to that recall brings along (docs/design.md#links): in rank order
 * of the linking pick and then of its text, only memories the selector saw (`fresh`: nothing
 * already read or surfaced) and did not pick itself (`taken`), at most {@link MAX_LINKED_MEMORIES},
 * each only while it fits the session budget (`bytesLeft`). A link to nothing, or to a memory
 * that does not fit or cannot be read, brings nothing. Memories without links cost nothing here.
 */
export async function linkedMemories(options: {
  links: readonly PickLinks[];
  fresh: readonly MemoryHeader[];
  taken: ReadonlySet<string>;
  bytesLeft: number;
  now: number;
}): Promise<LinkedMemory[]> {
  if (options.links.every((pick) => pick.names.length === 0)) return [];
  const resolve = linkResolver(options.fresh);
  const brought: LinkedMemory[] = [];
  const seen = new Set(options.taken);
  let bytesLeft = options.bytesLeft;
  for (const pick of options.links) {
    for (const name of pick.names) {
      if (brought.length >= MAX_LINKED_MEMORIES) return brought;
      const header = resolve(name);
      if (header === null || seen.has(header.file)) continue;
      seen.add(header.file);
      const read = await readMemoryCapped(header.path).catch(() => null);
      if (read === null) continue;
      const message = surfacedMemoryMessage({
        path: header.path,
        mtimeMs: savedAtMs(header),
        content: await shownContent(read.content),
        now: options.now,
      });
      const bytes = Buffer.byteLength(message.content as string, "utf8");
      if (bytes > bytesLeft) continue;
      bytesLeft -= bytes;
      brought.push({
        header,
        from: pick.file,
        name,
        truncated: read.truncated,
        message,
      });
    }
  }
  return brought;
}

/**
 * The binary form of a cache file (docs/design.md#caches-and-watchers: "typed arrays in one file read into one buffer"):
 * a small JSON header and typed arrays laid out back to back, so a reader makes views into the
 * one buffer it read instead of deserializing (and copying) tens of MB. Used for the lexical
 * index (`lexical.bin`), whose columns are most of a cache's bytes.
 *
 * Layout: the 4 bytes `MDCB`, the format (u32 little-endian, {@link BINARY_CACHE_FORMAT}), the
 * header's byte length (u32), the header (UTF-8 JSON: `{name, fingerprint, meta, arrays}` where
 * `arrays` lists each array's type and element count), zero bytes up to a multiple of 8, then each
 * array's bytes, each padded to a multiple of 8. A file whose sizes do not add up exactly (torn,
 * padded), whose magic or format differ (foreign, another version) or whose header is not that
 * JSON decodes to `null`. Typed arrays are in the host's byte order (little-endian on every
 * platform Node supports in practice); a file moved to a big-endian host would fail the caller's
 * shape checks at worst, never crash.
 */

const MAGIC = "MDCB";
/** Bump when the layout changes. */
export const BINARY_CACHE_FORMAT = 1;
const PREFIX_BYTES = 12;

/** The typed arrays a binary cache file can hold. */
export type CacheArray = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array;

const CONSTRUCTORS = { Uint8Array, Uint16Array, Uint32Array, Int32Array, Float64Array } as const;
type CacheArrayType = keyof typeof CONSTRUCTORS;

/** What a binary cache file holds: JSON-able `meta` and the arrays, in order. */
export interface BinaryCacheContent {
  meta: unknown;
  arrays: CacheArray[];
}

/**
 * What {@link encodeBinaryCache} writes: as {@link BinaryCacheContent}, but an array may be given
 * as chunks of one type (at least one), written back to back as one array: a column made of many
 * live arrays is then never copied into one.
 */
export interface BinaryCacheInput {
  meta: unknown;
  arrays: (CacheArray | readonly CacheArray[])[];
}

interface Header {
  name: string;
  fingerprint: string;
  meta: unknown;
  arrays: { type: CacheArrayType; length: number }[];
}

const padded = (bytes: number) => Math.ceil(bytes / 8) * 8;

function typeOf(array: CacheArray): CacheArrayType {
  for (const [type, Constructor] of Object.entries(CONSTRUCTORS))
    if (array instanceof Constructor) return type as CacheArrayType;
  throw new TypeError("binary cache: unsupported array type");
}

/**
 * The file's bytes for cache `name` made by code of `fingerprint`, as the parts to write one after
 * the other: the prefix and header, then each array's own bytes (views, not copies) and its
 * padding. Joined, they are the file; written part by part, a save holds no second copy of the
 * index (52 MB at 20,000 memories: docs/benchmarks.md#peak-rss-at-20000).
 */
export function encodeBinaryCache(
  name: string,
  fingerprint: string,
  content: BinaryCacheInput,
): Uint8Array[] {
  const columns = content.arrays.map((array) => (Array.isArray(array) ? array : [array as CacheArray]));
  const header: Header = {
    name,
    fingerprint,
    meta: content.meta,
    arrays: columns.map((chunks) => ({
      type: typeOf(chunks[0]),
      length: chunks.reduce((sum, chunk) => sum + chunk.length, 0),
    })),
  };
  const headerBytes = Buffer.from(JSON.stringify(header), "utf8");
  const head = Buffer.alloc(padded(PREFIX_BYTES + headerBytes.length));
  head.write(MAGIC, 0, "latin1");
  head.writeUInt32LE(BINARY_CACHE_FORMAT, 4);
  head.writeUInt32LE(headerBytes.length, 8);
  headerBytes.copy(head, PREFIX_BYTES);
  const parts: Uint8Array[] = [head];
  for (const chunks of columns) {
    let byteLength = 0;
    const type = typeOf(chunks[0]);
    for (const chunk of chunks) {
      if (typeOf(chunk) !== type) throw new TypeError("binary cache: chunks of one array differ in type");
      parts.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      byteLength += chunk.byteLength;
    }
    const padding = padded(byteLength) - byteLength;
    if (padding > 0) parts.push(new Uint8Array(padding));
  }
  return parts;
}

/**
 * The content of a binary cache file, its arrays views into `buffer` (copied once when the buffer
 * does not start on a multiple of 8); `null` when it is not a whole file of this format for cache
 * `name` written with `fingerprint`. Never throws.
 */
export function decodeBinaryCache(
  buffer: Buffer,
  name: string,
  fingerprint: string,
): BinaryCacheContent | null {
  if (buffer.length < PREFIX_BYTES || buffer.toString("latin1", 0, 4) !== MAGIC) return null;
  if (buffer.readUInt32LE(4) !== BINARY_CACHE_FORMAT) return null;
  const headerLength = buffer.readUInt32LE(8);
  if (PREFIX_BYTES + headerLength > buffer.length) return null;
  let header: Partial<Header>;
  try {
    header = JSON.parse(
      buffer.toString("utf8", PREFIX_BYTES, PREFIX_BYTES + headerLength),
    ) as Partial<Header>;
  } catch {
    return null;
  }
  if (
    header === null ||
    typeof header !== "object" ||
    header.name !== name ||
    header.fingerprint !== fingerprint
  )
    return null;
  if (!Array.isArray(header.arrays)) return null;
  let total = padded(PREFIX_BYTES + headerLength);
  for (const entry of header.arrays) {
    if (
      !entry ||
      !Object.hasOwn(CONSTRUCTORS, entry.type) ||
      !Number.isSafeInteger(entry.length) ||
      entry.length < 0
    )
      return null;
    total += padded(entry.length * CONSTRUCTORS[entry.type].BYTES_PER_ELEMENT);
  }
  if (total !== buffer.length) return null; // torn or padded
  // A fresh Uint8Array owns its ArrayBuffer from offset 0 (a small Buffer may sit in Node's pool).
  const aligned: Uint8Array = buffer.byteOffset % 8 === 0 ? buffer : new Uint8Array(buffer);
  let at = aligned.byteOffset + padded(PREFIX_BYTES + headerLength);
  const arrays = header.arrays.map(({ type, length }) => {
    const Constructor = CONSTRUCTORS[type];
    const array = new Constructor(aligned.buffer as ArrayBuffer, at, length);
    at += padded(length * Constructor.BYTES_PER_ELEMENT);
    return array;
  });
  return { meta: header.meta ?? null, arrays };
}

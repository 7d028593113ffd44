import type fs from "node:fs";
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  openSync,
  readlinkSync,
  realpathSync,
  statSync,
} from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { MemdirError } from "../../errors.ts";
import { isInside } from "./inside.ts";
import { assertRegularFile } from "./regular-file.ts";

// Opening files inside the memory dir so that a folder swapped for a symlink *after* the path
// check cannot redirect the write, delete or read (docs/design.md#path-safety). Node has no
// openat(), so on Linux a folder is pinned by its descriptor and reached again through
// `/proc/self/fd/N/…`, which the kernel resolves to the folder that was opened, whatever its
// name points at now; elsewhere the opened folder's device and inode are re-checked against its
// path before each rename or unlink.

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const DIRECTORY = constants.O_DIRECTORY ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** True where `/proc/self/fd/N` names what descriptor N has open (Linux); a fact of the platform. */
const PROC_FD = process.platform === "linux" && existsSync("/proc/self/fd");

function swapped(where: string, cause?: unknown): MemdirError {
  return new MemdirError(
    "path-outside",
    `memdir: path: ${where} changed into a symbolic link or left the memory directory while memdir was using it; nothing was written or read there`,
    cause === undefined ? undefined : { cause },
  );
}

/** A folder inside the memory dir, opened once; names in it are reached through the open folder. */
export interface PinnedFolder {
  /** Path that reaches `name` inside the folder that was opened. */
  entry(name: string): string;
  /** Throws when the folder's path no longer leads to the folder that was opened (non-Linux). */
  verify(): Promise<void>;
  /** fsyncs the folder (a rename's durability); errors are ignored. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens `folder` (relative to `memoryDir`, `/`-separated, "" for the memory dir itself) one
 * component at a time with `O_NOFOLLOW | O_DIRECTORY`, creating missing ones with `create`:
 * a component that is a symbolic link is refused, whatever it points at. The memory dir
 * itself must not be a link either (its ancestors may be).
 *
 * @throws MemdirError("path-outside") on a symlinked component; the raw `ENOENT` error when a
 * folder is missing and `create` is off.
 */
export async function openFolderInside(
  memoryDir: string,
  folder: string,
  options: { create?: boolean } = {},
): Promise<PinnedFolder> {
  const root = path.resolve(memoryDir);
  const segments = folder.split(/[\\/]/).filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) throw swapped(folder);
  if (options.create) await fsp.mkdir(root, { recursive: true });
  if (!PROC_FD) return openByPath(root, segments, options);
  let handle = await openDirectory(root, root);
  try {
    for (const segment of segments) {
      const next = `/proc/self/fd/${handle.fd}/${segment}`;
      if (options.create) await fsp.mkdir(next).catch(ignoreCode("EEXIST"));
      const child = await openDirectory(next, path.join(root, ...segments));
      await handle.close();
      handle = child;
    }
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  const pinned = handle;
  return {
    entry: (name) => `/proc/self/fd/${pinned.fd}/${name}`,
    verify: async () => undefined,
    sync: () => pinned.sync().catch(() => undefined),
    close: () => pinned.close(),
  };
}

async function openDirectory(where: string, shownAs: string): Promise<fsp.FileHandle> {
  try {
    return await fsp.open(where, constants.O_RDONLY | DIRECTORY | NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "ENOTDIR") throw swapped(shownAs, error);
    throw error;
  }
}

function ignoreCode(code: string) {
  return (error: NodeJS.ErrnoException) => {
    if (error.code !== code) throw error;
  };
}

/**
 * Without `/proc/self/fd`: each component is checked with lstat (no link), the last one is
 * opened with `O_NOFOLLOW`, and `verify()` (called right before a rename or unlink) checks that
 * the folder's path still leads to the opened folder and still lies inside the memory dir.
 */
async function openByPath(root: string, segments: string[], options: { create?: boolean }) {
  let current = root;
  for (const segment of [".", ...segments]) {
    current = segment === "." ? root : path.join(current, segment);
    if (options.create && segment !== ".") await fsp.mkdir(current).catch(ignoreCode("EEXIST"));
    const stat = await fsp.lstat(current);
    if (stat.isSymbolicLink() || !stat.isDirectory()) throw swapped(current);
  }
  const realRoot = await fsp.realpath(root);
  const folder = current;
  const handle = process.platform === "win32" ? null : await openDirectory(folder, folder);
  const opened = handle ? await handle.stat() : null;
  return {
    entry: (name: string) => path.join(folder, name),
    async verify() {
      const now = await fsp.lstat(folder).catch(() => null);
      const real = await fsp.realpath(folder).catch(() => null);
      if (!now || now.isSymbolicLink() || !real || !isInside(realRoot, real, { orSame: true }))
        throw swapped(folder);
      if (opened && (now.dev !== opened.dev || now.ino !== opened.ino)) throw swapped(folder);
    },
    sync: async () => {
      await handle?.sync().catch(() => undefined);
    },
    close: async () => {
      await handle?.close();
    },
  } satisfies PinnedFolder;
}

/**
 * Deletes `filePath` (inside `memoryDir`) through its pinned folder. unlink never follows the
 * last component, so a file swapped for a link loses the link, not its target.
 *
 * @throws the raw `ENOENT` error when the file or a folder is missing; MemdirError
 * ("invalid-input") for a folder; MemdirError("path-outside") for a swapped folder.
 */
export async function removeFileInside(memoryDir: string, filePath: string): Promise<void> {
  const relative = path.relative(path.resolve(memoryDir), path.resolve(filePath));
  const folder = await openFolderInside(memoryDir, path.dirname(relative));
  try {
    const entry = folder.entry(path.basename(relative));
    if ((await fsp.lstat(entry)).isDirectory())
      throw new MemdirError("invalid-input", `write: ${relative} is a folder, not a memory`);
    await folder.verify();
    await fsp.unlink(entry);
  } finally {
    await folder.close();
  }
}

/**
 * Opens `filePath` for reading without blocking (a FIFO does not hang the open) and checks that
 * what was opened lies inside `memoryDir`: on Linux from the descriptor itself
 * (`/proc/self/fd/N`, the kernel's name for the opened file, so no later swap changes the
 * answer), elsewhere from the real path of the name compared by device and inode with the
 * opened file. Symlinks that stay inside the memory dir are followed, as scans do.
 *
 * @throws the raw open error (`ENOENT`…); MemdirError("path-outside") when the opened file is outside.
 */
export async function openReadableInside(
  memoryDir: string,
  filePath: string,
): Promise<{ handle: fsp.FileHandle; stat: fs.Stats }> {
  const handle = await fsp.open(filePath, constants.O_RDONLY | NONBLOCK);
  try {
    const stat = await handle.stat();
    const realRoot = await fsp.realpath(memoryDir);
    const real = PROC_FD
      ? await fsp.readlink(`/proc/self/fd/${handle.fd}`)
      : await fsp.realpath(filePath).then(async (resolved) => {
          const named = await fsp.stat(resolved);
          return named.dev === stat.dev && named.ino === stat.ino ? resolved : "";
        });
    if (!real || !isInside(realRoot, real, { orSame: true }) || real === realRoot) throw swapped(filePath);
    assertRegularFile(filePath, stat); // never read a FIFO or device (docs/design.md#reading-files)
    return { handle, stat };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/**
 * {@link openReadableInside} for synchronous readers (the header scan, a picked memory's body):
 * the descriptor (the caller closes it) and its stat. `realRoot` is the memory dir's real path.
 */
export function openReadableInsideSync(realRoot: string, filePath: string): { fd: number; stat: fs.Stats } {
  const fd = openSync(filePath, constants.O_RDONLY | NONBLOCK);
  try {
    const stat = fstatSync(fd);
    let real: string;
    if (PROC_FD) real = readlinkSync(`/proc/self/fd/${fd}`);
    else {
      real = realpathSync(filePath);
      const named = statSync(real);
      if (named.dev !== stat.dev || named.ino !== stat.ino) real = "";
    }
    if (!real || !isInside(realRoot, real, { orSame: true }) || real === realRoot) throw swapped(filePath);
    assertRegularFile(filePath, stat); // never read a FIFO or device (docs/design.md#reading-files)
    return { fd, stat };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** The whole text of `filePath`, opened with {@link openReadableInside}; refuses anything but a regular file. */
export async function readTextInside(memoryDir: string, filePath: string): Promise<string> {
  const { handle, stat } = await openReadableInside(memoryDir, filePath);
  try {
    if (!stat.isFile()) throw new MemdirError("invalid-input", `read: ${filePath} is not a regular file`);
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}

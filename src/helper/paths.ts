import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Where the memory helper of this user, HOME, node binary and memdir build listens, and what a
 * client must send to be answered (docs/design.md#the-memory-helper). `bin/memdir.js` computes
 * the same names in plain JavaScript (its fast path loads nothing of dist/): change both together;
 * test/helper/helper.test.ts starts a helper from this side and asks it from that one.
 */
export interface HelperPaths {
  /** The per-user folder (mode 0700) that holds the socket. */
  dir: string;
  /** The unix socket file. */
  socket: string;
  /** Made (exclusively) by whoever starts a helper, removed by the helper once it listens. */
  starting: string;
  /**
   * The helper's secret (mode 0600, in the 0700 folder): written anew by each helper once it
   * listens, read by memdir's own clients, sent with every request. A process that cannot read
   * it (or does not know to) is refused: it cannot stop the helper or run anything in it.
   */
  secret: string;
  /** What a client's request must carry to be answered: protocol, version, build, node, HOME. */
  build: string;
  /** The build's `cli/main.js`, and the {@link fileStamp} it had when `build` was made from it. */
  mainFile: string;
  stamp: string;
}

/** The env switch that turns the helper off (`0`, `false` or `off`); read by bin/memdir.js too. */
export const HELPER_ENV = "MEMDIR_HELPER";
/** How long an idle helper lives, in ms (default {@link DEFAULT_HELPER_IDLE_MS}). */
export const HELPER_IDLE_ENV = "MEMDIR_HELPER_IDLE_MS";
export const DEFAULT_HELPER_IDLE_MS = 15 * 60_000;

/** Whether the helper is on under `env` (it is by default, except on Windows: no unix sockets there). */
export function helperEnabled(env: NodeJS.ProcessEnv): boolean {
  const value = (env[HELPER_ENV] ?? "").trim().toLowerCase();
  return process.platform !== "win32" && value !== "0" && value !== "false" && value !== "off";
}

/** The wire protocol's version; a client and a helper that differ never talk. */
export const HELPER_PROTOCOL = 2;

/** A unix socket path must fit `sun_path` (104 bytes on macOS, 108 on Linux, with its NUL). */
const SOCKET_PATH_MAX = 103;

/** A starting marker older than this is a start that failed: the next one may try again. */
export const STARTING_STALE_MS = 10_000;

/** The `cli/main.js` of this build (the file whose identity names the build). */
export function buildMainFile(): string {
  // Sources run through tsx have a main.ts; the build has main.js.
  const file = fileURLToPath(new URL("../cli/main.js", import.meta.url));
  return fs.existsSync(file) ? file : file.replace(/\.js$/, ".ts");
}

/**
 * The build's identity: protocol, package version, and the {@link fileStamp} of its
 * `cli/main.js` (every build and every install makes that file anew), or null when it is gone.
 */
export function buildIdentity(mainFile: string, stamp = fileStamp(mainFile)): string | null {
  if (stamp === null || stamp === "unknown") return null;
  return [HELPER_PROTOCOL, packageVersion(path.dirname(path.dirname(mainFile))), stamp].join(":");
}

/**
 * Device, inode, size and mtime of `file`; null when it is gone, "unknown" when it cannot be
 * told now (a `stat` refused for another reason than absence).
 */
export function fileStamp(file: string): string | null {
  try {
    const stat = fs.statSync(file);
    return [stat.dev, stat.ino, stat.size, stat.mtimeMs].join(":");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? null : "unknown";
  }
}

/** The version in the first `package.json` named memdir at or above `from` (4 levels), or "". */
function packageVersion(from: string): string {
  let dir = from;
  for (let level = 0; level < 4; level++) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === "memdir") return String(pkg.version);
    } catch {
      // not here: look further up
    }
    dir = path.dirname(dir);
  }
  return "";
}

/** Two 32-bit FNV-1a hashes as 16 hex digits: a short file name, not a secret. */
export function shortHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
  }
  return a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0");
}

/**
 * The helper's paths for `home` and this build, or null where there is no helper (no HOME, no
 * uid: Windows). The folder is `~/.cache/memdir/helper/`, or `<tmpdir>/memdir-<uid>/` when the
 * socket path under HOME would not fit a socket address.
 */
export function helperPaths(home: string | undefined, mainFile = buildMainFile()): HelperPaths | null {
  const uid = process.getuid?.();
  if (!home || uid === undefined) return null;
  const stamp = fileStamp(mainFile);
  const identity = buildIdentity(mainFile, stamp);
  if (identity === null || stamp === null) return null;
  const build = JSON.stringify([identity, process.execPath, home, uid]);
  const name = `${shortHash(build)}.sock`;
  let dir = path.join(home, ".cache", "memdir", "helper");
  if (Buffer.byteLength(path.join(dir, name)) > SOCKET_PATH_MAX)
    dir = path.join(os.tmpdir(), `memdir-${uid}`);
  return {
    dir,
    socket: path.join(dir, name),
    starting: path.join(dir, `${name}.starting`),
    secret: path.join(dir, `${name}.secret`),
    build,
    mainFile,
    stamp,
  };
}

/**
 * Why `dir` must not hold a helper socket, or null when it is fit: a real folder (not a symlink),
 * owned by this user, closed to group and others. Checked by the helper before it listens and
 * by every client before it sends its environment and prompt.
 */
export function unsafeHelperDir(dir: string): string | null {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(dir);
  } catch (error) {
    return `${dir}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
  }
  if (stat.isSymbolicLink()) return `${dir} is a symlink`;
  if (!stat.isDirectory()) return `${dir} is not a folder`;
  if (stat.uid !== process.getuid?.()) return `${dir} belongs to another user (uid ${stat.uid})`;
  if ((stat.mode & 0o077) !== 0)
    return `${dir} is open to group or others (mode ${(stat.mode & 0o777).toString(8)})`;
  return null;
}

/** The secret in `file` ({@link HelperPaths.secret}), or "" when it cannot be read (no helper yet). */
export function readHelperSecret(file: string): string {
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    return "";
  }
}

/** Makes the helper's folder (mode 0700) if missing; returns why it is unfit, or null. */
export function ensureHelperDir(dir: string): string | null {
  try {
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST")
      return `cannot make ${dir}: ${(error as Error).message}`;
  }
  return unsafeHelperDir(dir);
}

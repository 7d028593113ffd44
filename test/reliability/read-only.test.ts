// Faults: a file system that refuses writes. `memdir dream` and `memdir
// warm-up` printed raw stack traces there; every command must print the one-line `memdir: …`
// error instead, with exit code 1.
//
// Tests run as root here and in CI, where chmod stops nothing. So the read-only file system is a
// real one: the child runs in its own mount namespace (`unshare --mount`, or `--user
// --map-root-user --mount` where only unprivileged namespaces are allowed) in which the memory
// dir (or the memory root) is bind-mounted read-only, so every write there fails with EROFS. The
// mount is gone with the child; nothing on the host changes. Where neither kind of namespace can
// be made (some containers), those cases skip and say so. One fault needs no namespace and always
// runs: a memory root below a regular file, where creating the memory dir fails with ENOTDIR.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { type CliResult, runCli } from "../helpers/cli.ts";
import { memory, writeMemory } from "../helpers/memory.ts";
import { recordBoundedRun } from "../helpers/reliability-counts.ts";
import { makeTempDir } from "../helpers/temp.ts";

const CHILD_BOUND_MS = 30_000;
// `sh -c` script: bind-mount $1 read-only onto itself, then run the rest of the arguments.
const READ_ONLY_THEN_RUN = 'mount --bind -o ro "$1" "$1" && shift && exec "$@"';

/** The `unshare` flags that give this process a private mount namespace, or null when none can be made. */
function namespaceFlags(): string[] | null {
  const probe = makeTempDir("memdir-ro-probe-");
  for (const flags of [["--mount"], ["--user", "--map-root-user", "--mount"]]) {
    const made = spawnSync("unshare", [...flags, "sh", "-c", READ_ONLY_THEN_RUN, "sh", probe, "true"], {
      encoding: "utf8",
      timeout: 10_000,
    });
    if (made.status === 0) return flags;
  }
  return null;
}

const flags = namespaceFlags();
const noNamespace = flags
  ? false
  : "no mount namespace can be made here (unshare --mount and --user --mount both refused)";

/** Runs the CLI as a real child, with `readOnly` (when given) bind-mounted read-only for it alone. */
function runCliOn(
  args: string[],
  options: { home: string; cwd?: string; env?: Record<string, string>; readOnly?: string },
): Promise<CliResult> {
  const under = options.readOnly
    ? ["unshare", ...(flags ?? []), "sh", "-c", READ_ONLY_THEN_RUN, "sh", options.readOnly]
    : undefined;
  return runCli(args, { ...options, under, timeoutMs: CHILD_BOUND_MS }).then((result) => {
    recordBoundedRun("faults", result);
    return result;
  });
}

function assertOneLineError(result: CliResult, what: string, reason: RegExp): void {
  assert.equal(result.code, 1, `${what}: exit code 1 (stderr: ${result.stderr})`);
  const lines = result.stderr.trim().split("\n");
  assert.equal(lines.length, 1, `${what}: one line on stderr, no stack trace:\n${result.stderr}`);
  assert.match(lines[0], /^memdir: /, what);
  assert.match(lines[0], reason, what);
  assert.doesNotMatch(result.stderr, /\n\s+at /, `${what}: no stack frames`);
}

/** A memory dir with two memories and their index, under `<home>/memory`. */
function memoryDir(home: string): string {
  const dir = path.join(home, "memory");
  writeMemory(dir, "feedback-real-db.md", memory("tests hit a real database", "Never mock it."));
  writeMemory(dir, "feedback-real-db-2.md", memory("tests hit a real database", "Never mock it."));
  fs.writeFileSync(
    path.join(dir, "MEMORY.md"),
    "- [Real DB](feedback-real-db.md) — tests hit a real database\n- [Real DB](feedback-real-db-2.md) — tests hit a real database\n",
  );
  return dir;
}

describe("a file system that refuses writes", () => {
  it("dream: a memory root below a regular file (ENOTDIR) gives one line, no stack trace", async () => {
    const home = makeTempDir("memdir-ro-");
    const project = path.join(home, "project");
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(home, "a-file"), "not a folder\n");
    const result = await runCliOn(["dream", "--force"], {
      home,
      cwd: project,
      env: { MEMDIR_ROOT: path.join(home, "a-file", "root") },
    });
    assertOneLineError(
      result,
      "dream under a file",
      /^memdir: dream: cannot mkdir .*: ENOTDIR \(not a directory\)$/,
    );
  });

  for (const command of [["dream", "--force"], ["warm-up"]]) {
    it(`${command[0]}: a read-only memory dir (EROFS) gives one line and changes nothing`, {
      skip: noNamespace,
    }, async () => {
      const home = makeTempDir("memdir-ro-");
      const dir = memoryDir(home);
      const before = fs.readdirSync(dir).sort();
      const result = await runCliOn([...command, "--dir", dir], { home, readOnly: dir });
      assertOneLineError(result, `${command[0]} on a read-only memory dir`, /EROFS/);
      assert.deepEqual(fs.readdirSync(dir).sort(), before, "nothing was written");
    });
  }

  for (const command of [
    ["dream", "--force"],
    ["add", "--type", "user", "--description", "prefers short answers", "Keep replies short."],
  ]) {
    it(`${command[0]}: a read-only memory root (EROFS) gives one line naming it`, {
      skip: noNamespace,
    }, async () => {
      const home = makeTempDir("memdir-ro-");
      const root = path.join(home, "root");
      const project = path.join(home, "project");
      fs.mkdirSync(root);
      fs.mkdirSync(project);
      const result = await runCliOn(command, {
        home,
        cwd: project,
        env: { MEMDIR_ROOT: root },
        readOnly: root,
      });
      assertOneLineError(result, `${command[0]} under a read-only root`, /EROFS \(read-only file system\)/);
      assert.deepEqual(fs.readdirSync(root), [], "nothing was created");
    });
  }
});

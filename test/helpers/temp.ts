import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after } from "node:test";

/** A real temp directory, removed when the current test file finishes. Returns its real path. */
export function makeTempDir(prefix = "memdir-test-"): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  // Retries: a background process a test started (an extraction, a warm-up) may still be writing
  // its last file; without them the removal failed with ENOTEMPTY (seen in CI). Asynchronous, so
  // that a cache save this process runs in the background (recall's header cache) can finish
  // between the retries: the synchronous removal blocked it and failed all ten under load.
  after(() => fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  return dir;
}

/**
 * {@link makeTempDir} on the disk's temp folder even when the test runner put the tests' temp
 * files in RAM (scripts/run-tests.mjs): for an agent whose sandbox gives its commands a fresh
 * `/dev` (Codex), where a project under `/dev/shm` is not there.
 */
export function makeDiskTempDir(prefix = "memdir-test-"): string {
  const disk = process.env.MEMDIR_TEST_DISK_TMPDIR || os.tmpdir();
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(disk, prefix)));
  after(() => fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  return dir;
}

/** Writes files (relative path → content) under `dir`, creating folders. */
export function writeTree(dir: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    const full = path.join(dir, rel);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, content);
  }
}

/** `../shared` beside the repo, or null when absent (tests that need it skip with a message). */
export function sharedDir(): string | null {
  const candidate = path.resolve(import.meta.dirname, "../../../shared");
  return fs.existsSync(path.join(candidate, "bench")) ? candidate : null;
}

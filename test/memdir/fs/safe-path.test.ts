import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { isMemdirError } from "../../../src/errors.ts";
import { assertInsideMemoryDir, resolveInsideMemoryDir } from "../../../src/memdir/fs/safe-path.ts";
import { makeTempDir } from "../../helpers/temp.ts";

function memoryDirIn(base: string): string {
  const memoryDir = path.join(base, "root", "projects", "-work-shop", "memory");
  fs.mkdirSync(memoryDir, { recursive: true });
  return memoryDir;
}

describe("resolveInsideMemoryDir", () => {
  it("accepts a plain file name and returns its absolute path and relative name", async () => {
    const memoryDir = memoryDirIn(makeTempDir());
    const result = await resolveInsideMemoryDir(memoryDir, "feedback-testing.md");
    assert.deepEqual(result, {
      ok: true,
      path: path.join(memoryDir, "feedback-testing.md"),
      file: "feedback-testing.md",
    });
  });

  it("accepts sub-folders that do not exist yet, with / separators in file", async () => {
    const memoryDir = memoryDirIn(makeTempDir());
    const result = await resolveInsideMemoryDir(memoryDir, "team/backend/feedback-db.md");
    assert.equal(result.ok, true);
    if (result.ok) {
      assert.equal(result.file, "team/backend/feedback-db.md");
      assert.equal(result.path, path.join(memoryDir, "team", "backend", "feedback-db.md"));
    }
  });

  it("accepts ./ prefixes and repeated slashes", async () => {
    const memoryDir = memoryDirIn(makeTempDir());
    const result = await resolveInsideMemoryDir(memoryDir, "./notes//user-role.md");
    assert.equal(result.ok && result.file, "notes/user-role.md");
  });

  it("accepts CJK and other non-ASCII names", async () => {
    const memoryDir = memoryDirIn(makeTempDir());
    const result = await resolveInsideMemoryDir(memoryDir, "反馈-数据库测试.md");
    assert.equal(result.ok && result.file, "反馈-数据库测试.md");
  });

  it("accepts a percent sign that is not a URL escape", async () => {
    const memoryDir = memoryDirIn(makeTempDir());
    const result = await resolveInsideMemoryDir(memoryDir, "project-50%-rollout.md");
    assert.equal(result.ok && result.file, "project-50%-rollout.md");
  });

  it("accepts an absolute path inside the memory dir", async () => {
    const memoryDir = memoryDirIn(makeTempDir());
    const result = await resolveInsideMemoryDir(memoryDir, path.join(memoryDir, "sub", "user-role.md"));
    assert.equal(result.ok && result.file, "sub/user-role.md");
  });

  it("accepts an absolute path spelled through a symlinked ancestor of the memory dir", async () => {
    const base = makeTempDir();
    const memoryDir = memoryDirIn(base);
    fs.symlinkSync(path.join(base, "root"), path.join(base, "alias"));
    const viaAlias = path.join(base, "alias", "projects", "-work-shop", "memory", "user-role.md");
    const result = await resolveInsideMemoryDir(memoryDir, viaAlias);
    assert.deepEqual(result, { ok: true, path: path.join(memoryDir, "user-role.md"), file: "user-role.md" });
  });

  it("allows a memory dir below a symlinked ancestor (like macOS /tmp)", async () => {
    const base = makeTempDir();
    memoryDirIn(base);
    fs.symlinkSync(path.join(base, "root"), path.join(base, "alias"));
    const memoryDirViaAlias = path.join(base, "alias", "projects", "-work-shop", "memory");
    const result = await resolveInsideMemoryDir(memoryDirViaAlias, "user-role.md");
    assert.deepEqual(result, {
      ok: true,
      path: path.join(memoryDirViaAlias, "user-role.md"),
      file: "user-role.md",
    });
  });

  it("works before the memory dir exists", async () => {
    const memoryDir = path.join(makeTempDir(), "root", "projects", "-new", "memory");
    const result = await resolveInsideMemoryDir(memoryDir, "user-role.md");
    assert.deepEqual(result, { ok: true, path: path.join(memoryDir, "user-role.md"), file: "user-role.md" });
  });

  it("follows a symlink that stays inside and reports the real file", async () => {
    const memoryDir = memoryDirIn(makeTempDir());
    fs.mkdirSync(path.join(memoryDir, "real"));
    fs.symlinkSync("real", path.join(memoryDir, "alias"));
    const result = await resolveInsideMemoryDir(memoryDir, "alias/user-role.md");
    assert.deepEqual(result, {
      ok: true,
      path: path.join(memoryDir, "real", "user-role.md"),
      file: "real/user-role.md",
    });
  });

  it("refuses the memory dir itself", async () => {
    const memoryDir = memoryDirIn(makeTempDir());
    for (const requested of [".", memoryDir, `${memoryDir}/`]) {
      const result = await resolveInsideMemoryDir(memoryDir, requested);
      assert.equal(result.ok, false, requested);
      if (!result.ok) assert.equal(result.rule, "memory-dir-itself");
    }
  });

  it("refuses an empty path", async () => {
    const result = await resolveInsideMemoryDir(memoryDirIn(makeTempDir()), "  ");
    assert.equal(!result.ok && result.rule, "empty");
  });

  it("refuses a file used as a folder", async () => {
    const memoryDir = memoryDirIn(makeTempDir());
    fs.writeFileSync(path.join(memoryDir, "user-role.md"), "x");
    const result = await resolveInsideMemoryDir(memoryDir, "user-role.md/inner.md");
    assert.equal(!result.ok && result.rule, "not-a-folder");
  });

  it("refuses a memory dir whose real path leaves the root when the root is given", async () => {
    const base = makeTempDir();
    const elsewhere = path.join(base, "elsewhere");
    fs.mkdirSync(elsewhere);
    const root = path.join(base, "root");
    fs.mkdirSync(path.join(root, "projects"), { recursive: true });
    fs.symlinkSync(elsewhere, path.join(root, "projects", "-work-shop"));
    const memoryDir = path.join(root, "projects", "-work-shop", "memory");
    fs.mkdirSync(memoryDir);
    const unchecked = await resolveInsideMemoryDir(memoryDir, "user-role.md");
    assert.equal(unchecked.ok, true, "without a root, symlinked ancestors are allowed");
    const checked = await resolveInsideMemoryDir(memoryDir, "user-role.md", { root });
    assert.equal(!checked.ok && checked.rule, "memory-dir-symlink");
    if (!checked.ok) assert.match(checked.reason, /outside the memory root/);
  });

  it("names the memory dir and a relative example in its reasons, so a model can correct itself", async () => {
    const memoryDir = memoryDirIn(makeTempDir());
    const result = await resolveInsideMemoryDir(memoryDir, "../x.md");
    assert.equal(result.ok, false);
    if (!result.ok) {
      assert.equal(result.rule, "dot-dot");
      assert.ok(result.reason.includes(memoryDir));
      assert.match(result.reason, /relative to the memory directory/);
    }
  });
});

describe("assertInsideMemoryDir", () => {
  it("returns path and file when inside", async () => {
    const memoryDir = memoryDirIn(makeTempDir());
    assert.deepEqual(await assertInsideMemoryDir(memoryDir, "a/b.md"), {
      path: path.join(memoryDir, "a", "b.md"),
      file: "a/b.md",
    });
  });

  it("throws MemdirError(path-outside) with the reason", async () => {
    const memoryDir = memoryDirIn(makeTempDir());
    await assert.rejects(assertInsideMemoryDir(memoryDir, "/etc/passwd"), (error: unknown) => {
      assert.ok(isMemdirError(error, "path-outside"));
      assert.match(
        (error as Error).message,
        /^memdir: path: the path "\/etc\/passwd" is outside the memory directory/,
      );
      return true;
    });
  });
});

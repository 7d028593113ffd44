import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { isMemdirError } from "../../../src/errors.ts";
import { parseFrontmatter } from "../../../src/memdir/format/frontmatter.ts";
import { parseIndex } from "../../../src/memdir/format/index-file.ts";
import { slugFor } from "../../../src/memdir/format/memory-names.ts";
import { writeFileAtomic, writeFileAtomicStreamed } from "../../../src/memdir/fs/atomic.ts";
import { withMemoryLock } from "../../../src/memdir/fs/lock.ts";
import { removeMemory, saveMemory, writeMemoryText } from "../../../src/memdir/write/write.ts";
import { makeTempDir, writeTree } from "../../helpers/temp.ts";

const LOCK = ".memdir-write.lock";

function readIndexEntries(dir: string) {
  return parseIndex(fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8"));
}

function listDir(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
}

describe("saveMemory", () => {
  it("writes the memory file and its index line, creating the directory", async () => {
    const dir = path.join(makeTempDir(), "projects", "-shop", "memory");
    const saved = await saveMemory(dir, {
      type: "feedback",
      description: "login tests must hit a real database",
      body: "Why: a mocked test passed while the migration failed.",
    });
    assert.equal(saved.file, "feedback-login-tests-hit-real-database.md");
    assert.equal(saved.created, true);
    const parsed = parseFrontmatter(fs.readFileSync(saved.path, "utf8"));
    assert.equal(parsed.type, "feedback");
    assert.equal(parsed.description, "login tests must hit a real database");
    assert.match(parsed.body, /mocked test passed/);
    assert.deepEqual(readIndexEntries(dir), [
      {
        title: "Login tests hit real database",
        file: saved.file,
        hook: "login tests must hit a real database",
        lineNumber: 1,
      },
    ]);
    assert.deepEqual(listDir(dir), ["MEMORY.md", saved.file], "no lock or temp file left behind");
  });

  it("names a memory without ASCII words by a short hash, and never overwrites another", async () => {
    const dir = makeTempDir();
    const first = await saveMemory(dir, {
      type: "project",
      description: "认证重构由合规要求推动",
      body: "x",
    });
    assert.match(first.file, /^project-[0-9a-f]{8}\.md$/);
    const a = await saveMemory(dir, { type: "user", description: "prefers terse answers", body: "1" });
    const b = await saveMemory(dir, { type: "user", description: "prefers terse answers", body: "2" });
    assert.equal(a.file, "user-prefers-terse-answers.md");
    assert.equal(b.file, "user-prefers-terse-answers-2.md");
    assert.equal(readIndexEntries(dir).length, 3);
  });

  it("replaces a given file and updates its index line instead of duplicating it", async () => {
    const dir = makeTempDir();
    await saveMemory(dir, {
      file: "team/rule.md",
      type: "feedback",
      description: "old rule",
      body: "old",
      title: "Rule",
    });
    const again = await saveMemory(dir, {
      file: "team/rule.md",
      type: "feedback",
      description: "new rule",
      body: "new",
    });
    assert.equal(again.created, false);
    assert.deepEqual(readIndexEntries(dir), [
      { title: "Rule", file: "team/rule.md", hook: "new rule", lineNumber: 1 },
    ]);
    assert.match(fs.readFileSync(again.path, "utf8"), /description: new rule[\s\S]*new\n$/);
  });

  it("refuses bad input and writes nothing", async () => {
    const dir = path.join(makeTempDir(), "memory");
    const outside = path.join(path.dirname(dir), "outside.md");
    const cases: [Parameters<typeof saveMemory>[1], string][] = [
      [{ type: "opinion", description: "d", body: "b" }, "invalid-type"],
      [{ type: "user", description: "   ", body: "b" }, "invalid-input"],
      [{ type: "user", description: "d", body: "b", file: "../outside.md" }, "path-outside"],
      [{ type: "user", description: "d", body: "b", file: outside }, "path-outside"],
      [{ type: "user", description: "d", body: "b", file: "MEMORY.md" }, "invalid-input"],
      [{ type: "user", description: "d", body: "b", file: "notes.txt" }, "invalid-input"],
      [{ type: "reference", description: "deploy key", body: "AKIAZ7Q3R5T2W8Y4U6P1 is the key" }, "secret"],
      [{ type: "reference", description: "password=hunter2hunter2", body: "b" }, "secret"],
    ];
    for (const [input, code] of cases) {
      await assert.rejects(
        saveMemory(dir, input),
        (e) => isMemdirError(e) && e.code === code,
        JSON.stringify(input),
      );
    }
    const left = listDir(dir).filter((f) => f !== LOCK);
    assert.deepEqual(left, [], "nothing written");
    assert.ok(!fs.existsSync(outside));
  });

  it("names the secret kind but never its value", async () => {
    const dir = makeTempDir();
    const token = `ghp_${"a1B2c3D4e5".repeat(4)}abcd`;
    await assert.rejects(
      saveMemory(dir, { type: "reference", description: "ci token", body: `token: ${token}` }),
      (e) => {
        assert.ok(isMemdirError(e, "secret"));
        assert.ok(!e.message.includes(token));
        return true;
      },
    );
  });

  it("warns the writer when the index goes over its line limit", async () => {
    const dir = makeTempDir();
    const lines = Array.from({ length: 200 }, (_, i) => `- [M${i}](m${i}.md) — memory ${i}`);
    writeTree(dir, { "MEMORY.md": `${lines.join("\n")}\n` });
    const saved = await saveMemory(dir, { type: "user", description: "one too many", body: "b" });
    assert.match(saved.indexWarning ?? "", /201 lines \(limit 200\).*one short line/);
  });
});

describe("removeMemory", () => {
  it("removes the file and its index line together", async () => {
    const dir = makeTempDir();
    const a = await saveMemory(dir, { type: "user", description: "alpha memory", body: "a" });
    const b = await saveMemory(dir, { type: "user", description: "beta memory", body: "b" });
    await removeMemory(dir, a.file);
    assert.ok(!fs.existsSync(a.path));
    assert.deepEqual(
      readIndexEntries(dir).map((e) => e.file),
      [b.file],
    );
  });

  it("drops a dead pointer, and reports a memory that does not exist at all", async () => {
    const dir = makeTempDir();
    writeTree(dir, { "MEMORY.md": "- [Gone](gone.md) — gone\n" });
    await removeMemory(dir, "gone.md");
    assert.equal(fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8"), "");
    await assert.rejects(removeMemory(dir, "never.md"), (e) => isMemdirError(e, "not-found"));
    await assert.rejects(removeMemory(dir, "../x.md"), (e) => isMemdirError(e, "path-outside"));
  });
});

describe("writeMemoryText", () => {
  it("writes raw text inside the memory dir only, refusing secrets", async () => {
    const keyBody = (
      randomBytes(192)
        .toString("base64")
        .match(/.{1,64}/g) ?? []
    ).join("\n");
    const dir = makeTempDir();
    const written = await writeMemoryText(dir, "sub/raw.md", "---\ntype: user\ndescription: raw\n---\nhi\n");
    assert.equal(written.created, true);
    assert.equal(fs.readFileSync(path.join(dir, "sub/raw.md"), "utf8").endsWith("hi\n"), true);
    await assert.rejects(writeMemoryText(dir, "../escape.md", "x"), (e) => isMemdirError(e, "path-outside"));
    await assert.rejects(
      writeMemoryText(
        dir,
        "k.md",
        `-----BEGIN RSA PRIVATE KEY-----\n${keyBody}\n-----END RSA PRIVATE KEY-----\n`,
      ),
      (e) => isMemdirError(e, "secret"),
    );
    assert.ok(!fs.existsSync(path.join(dir, "k.md")));
  });
});

describe("withMemoryLock", () => {
  it("serializes writers in one process and is re-entrant", async () => {
    const dir = makeTempDir();
    const order: string[] = [];
    await Promise.all(
      ["a", "b", "c"].map((name) =>
        withMemoryLock(dir, async () => {
          order.push(`${name}+`);
          await withMemoryLock(dir, async () => new Promise((r) => setTimeout(r, 5)));
          order.push(`${name}-`);
        }),
      ),
    );
    for (let i = 0; i < order.length; i += 2) assert.equal(order[i].slice(0, 1), order[i + 1].slice(0, 1));
    assert.ok(!fs.existsSync(path.join(dir, LOCK)));
  });

  it("takes over a lock left by a dead process", async () => {
    const dir = makeTempDir();
    const dead = spawnSync(process.execPath, [
      "-e",
      "process.stdout.write(String(process.pid))",
    ]).stdout.toString();
    const { hostname } = await import("node:os");
    fs.writeFileSync(path.join(dir, LOCK), `${dead}\n${hostname()}\n`);
    assert.equal(await withMemoryLock(dir, async () => "ran", { timeoutMs: 2000 }), "ran");
  });

  it("fails with lock-timeout naming the holder when a live process keeps the lock", async () => {
    const dir = makeTempDir();
    const { hostname } = await import("node:os");
    fs.writeFileSync(path.join(dir, LOCK), `${process.ppid}\n${hostname()}\n`);
    await assert.rejects(
      withMemoryLock(dir, async () => "ran", { timeoutMs: 100 }),
      (e) => {
        assert.ok(isMemdirError(e, "lock-timeout"));
        assert.match(e.message, new RegExp(`process ${process.ppid}`));
        return true;
      },
    );
  });
});

describe("writeFileAtomic", () => {
  it("replaces the file whole and leaves no temp file", async () => {
    const dir = makeTempDir();
    const file = path.join(dir, "x.md");
    fs.writeFileSync(file, "old");
    await writeFileAtomic(file, "new");
    assert.equal(fs.readFileSync(file, "utf8"), "new");
    assert.deepEqual(listDir(dir), ["x.md"]);
  });
});

describe("writeFileAtomicStreamed", () => {
  // Lines past one 64 KB block, so part of the file has reached the disk before the end.
  const lines = Array.from({ length: 3000 }, (_, i) => `{"n":${i},"text":"${"é".repeat(40)}"}\n`);

  it("writes what it is handed, in order, and resolves to what the producer returns", async () => {
    const dir = makeTempDir();
    const file = path.join(dir, "out.jsonl");
    const count = await writeFileAtomicStreamed(file, async (write) => {
      for (const line of lines) await write(line);
      return lines.length;
    });
    assert.equal(count, 3000);
    assert.equal(fs.readFileSync(file, "utf8"), lines.join(""));
    assert.deepEqual(listDir(dir), ["out.jsonl"]);
  });

  it("writes bytes and text in the order they come", async () => {
    const file = path.join(makeTempDir(), "mixed.bin");
    const bytes = Uint8Array.from({ length: 100_000 }, (_, i) => i % 251);
    await writeFileAtomicStreamed(file, async (write) => {
      await write("head:");
      await write(bytes);
      await write("tail");
    });
    assert.deepEqual(
      fs.readFileSync(file),
      Buffer.concat([Buffer.from("head:"), Buffer.from(bytes), Buffer.from("tail")]),
    );
  });

  it("leaves the old file and no temp file when the producer fails half-way, with its own error", async () => {
    const dir = makeTempDir();
    const file = path.join(dir, "out.jsonl");
    fs.writeFileSync(file, "old");
    const failure = new Error("stopped");
    await assert.rejects(
      writeFileAtomicStreamed(file, async (write) => {
        for (const line of lines.slice(0, 2000)) await write(line);
        throw failure;
      }),
      (error) => error === failure,
    );
    assert.equal(fs.readFileSync(file, "utf8"), "old");
    assert.deepEqual(listDir(dir), ["out.jsonl"]);
  });
});

describe("slugFor", () => {
  it("makes a readable ASCII name, with a hash for non-ASCII text", () => {
    assert.equal(
      slugFor("feedback", "Login tests: real database, never mocks!"),
      "feedback-login-tests-real-database-never-mocks.md",
    );
    assert.match(
      slugFor("feedback", "登录模块的集成测试不得 mock 数据库"),
      /^feedback-mock-[0-9a-f]{6}\.md$/,
    );
    assert.match(slugFor("user", "用户偏好"), /^user-[0-9a-f]{8}\.md$/);
  });

  it("keeps negations, contractions and numbers, and drops only filler", () => {
    assert.equal(slugFor("project", "don't remember the password"), "project-dont-remember-password.md");
    assert.equal(slugFor("feedback", "We can't use Docker at work"), "feedback-cant-docker-work.md");
    assert.equal(slugFor("feedback", "use pnpm, not npm"), "feedback-pnpm-not-npm.md");
    assert.equal(
      slugFor("project", "no force-push to main after 5pm on Fridays"),
      "project-no-force-push-main-after-5pm-fridays.md",
    );
    assert.equal(slugFor("user", "the user's editor is vim"), "user-users-editor-vim.md");
    // A curly apostrophe or a dash is punctuation, not text a hash must stand for.
    assert.equal(
      slugFor("project", "API limit — 100 requests per minute, don’t exceed it"),
      "project-api-limit-100-requests-per-minute-dont-exceed.md",
    );
  });

  it("caps a long description at eight words within 60 characters", () => {
    assert.equal(
      slugFor("reference", "ci runs lint, unit, e2e, smoke, perf, load and soak checks"),
      "reference-ci-runs-lint-unit-e2e-smoke-perf-load.md",
    );
    // A ninth word would not fit; nor would "inventory", past 60 characters.
    assert.equal(
      slugFor("reference", "grafana dashboards for checkout latency, payments errors, inventory sync"),
      "reference-grafana-dashboards-checkout-latency-payments-errors.md",
    );
  });
});

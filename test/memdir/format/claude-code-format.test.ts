import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { parseFrontmatter } from "../../../src/memdir/format/frontmatter.ts";
import { diagnoseMemoryDir } from "../../../src/memdir/health/doctor.ts";
import { HeaderCache } from "../../../src/memdir/scan/header-cache.ts";
import { linkNames, linkResolver, resolveLinks, unresolvedLinks } from "../../../src/memdir/scan/links.ts";
import { formatManifest, scanHeaders } from "../../../src/memdir/scan/scan.ts";
import { saveMemory, writeMemoryText } from "../../../src/memdir/write/write.ts";
import { savedAtMs } from "../../../src/types.ts";
import { makeTempDir } from "../../helpers/temp.ts";

// Memory files in the shapes Claude Code writes (test/fixtures/claude-code): `type` at the top
// level (older files) or under `metadata:` (2.1.x), with and without `name`, `modified`, links.
const FIXTURE = path.resolve(import.meta.dirname, "../../fixtures/claude-code");

/** A fresh copy of the fixture: every file's mtime is now, as after a copy or a checkout. */
function copyFixture(): string {
  const dir = path.join(makeTempDir(), "memory");
  fs.cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

const FROZEN = Date.parse("2026-09-01T00:00:00.000Z");

describe("Claude Code's memory files", () => {
  it("reads type under metadata, name and modified, and doctor finds nothing wrong", async () => {
    const dir = copyFixture();
    const headers = await scanHeaders(dir, { cache: null });
    const byFile = new Map(headers.map((header) => [header.file, header]));
    assert.deepEqual([...byFile.keys()].sort(), [
      "feedback_testing.md",
      "project_freeze.md",
      "reference_dashboards.md",
      "user_role.md",
    ]);
    assert.equal(byFile.get("feedback_testing.md")?.type, "feedback");
    assert.equal(byFile.get("feedback_testing.md")?.name, "feedback-testing");
    assert.equal(byFile.get("feedback_testing.md")?.modifiedMs, Date.parse("2026-07-30T07:40:18.191Z"));
    assert.equal(byFile.get("project_freeze.md")?.type, "project");
    assert.equal(byFile.get("project_freeze.md")?.name, null);
    assert.equal(byFile.get("project_freeze.md")?.modifiedMs, null);
    assert.equal(byFile.get("user_role.md")?.type, "user");
    assert.equal(byFile.get("reference_dashboards.md")?.modifiedMs, Date.parse("2026-05-01T12:00:00.000Z"));
    assert.deepEqual(await diagnoseMemoryDir(dir), []);
  });

  it("prefers a top-level type and ignores a modified that is no time", () => {
    const both = parseFrontmatter("---\ndescription: d\ntype: user\nmetadata:\n  type: feedback\n---\n");
    assert.equal(both.type, "user");
    const invalid = parseFrontmatter("---\ndescription: d\ntype: user\nmodified: last tuesday\n---\n");
    assert.equal(invalid.modifiedMs, null);
    assert.deepEqual(invalid.issues, []);
    const wrongNested = parseFrontmatter("---\ndescription: d\nmetadata:\n  type: opinion\n---\n");
    assert.deepEqual(
      wrongNested.issues.map((issue) => issue.code),
      ["invalid-type"],
    );
  });

  it("dates a memory by its modified time, not by the mtime a copy reset", async () => {
    const dir = copyFixture();
    const headers = await scanHeaders(dir, { cache: null });
    const testing = headers.find((header) => header.file === "feedback_testing.md");
    assert.ok(testing);
    assert.ok(testing.mtimeMs > Date.parse("2026-11-01"), "the copy has a fresh mtime");
    assert.equal(savedAtMs(testing), Date.parse("2026-07-30T07:40:18.191Z"));
    assert.match(formatManifest(headers), /feedback_testing\.md \(2026-07-30T07:40:18\.191Z\)/);
    const freeze = headers.find((header) => header.file === "project_freeze.md");
    assert.ok(freeze);
    assert.equal(savedAtMs(freeze), freeze.mtimeMs, "without modified, the mtime");
  });

  it("keeps name and modified in the persisted header cache", async () => {
    const dir = copyFixture();
    // Enough files for the cache file to be worth writing.
    for (let i = 0; i < 500; i++)
      fs.writeFileSync(path.join(dir, `note-${i}.md`), `---\ndescription: note ${i}\ntype: user\n---\n`);
    const first = new HeaderCache({ persist: true });
    await scanHeaders(dir, { cache: first });
    await first.persisted.flush();
    const second = new HeaderCache({ persist: true });
    const headers = await scanHeaders(dir, { cache: second });
    assert.equal(second.reads, 0, "every header came from the cache file");
    const testing = headers.find((header) => header.file === "feedback_testing.md");
    assert.equal(testing?.name, "feedback-testing");
    assert.equal(testing?.modifiedMs, Date.parse("2026-07-30T07:40:18.191Z"));
    assert.equal(headers.find((header) => header.file === "project_freeze.md")?.modifiedMs, null);
  });
});

describe("saving over a Claude Code memory", () => {
  it("keeps unknown keys and the metadata shape, and refreshes modified", async () => {
    const dir = copyFixture();
    await saveMemory(
      dir,
      {
        file: "feedback_testing.md",
        type: "feedback",
        description: "integration tests hit a real database",
        body: "Never mock the database. See [[user-role]].",
      },
      { now: () => FROZEN },
    );
    const parsed = parseFrontmatter(fs.readFileSync(path.join(dir, "feedback_testing.md"), "utf8"));
    assert.deepEqual(parsed.issues, []);
    assert.deepEqual(parsed.data, {
      name: "feedback-testing",
      description: "integration tests hit a real database",
      metadata: {
        node_type: "memory",
        type: "feedback",
        originSessionId: "9bcb5645-bb7a-4eb5-8136-ff774166a95e",
        modified: "2026-09-01T00:00:00.000Z",
      },
    });
    assert.equal(parsed.modifiedMs, FROZEN);
  });

  it("sets name to the file's stem and modified at the top level when the file has neither", async () => {
    const dir = copyFixture();
    await saveMemory(
      dir,
      { file: "project_freeze.md", type: "project", description: "merge freeze from 2026-03-05", body: "x" },
      { now: () => FROZEN },
    );
    const freeze = parseFrontmatter(fs.readFileSync(path.join(dir, "project_freeze.md"), "utf8"));
    assert.deepEqual(freeze.data, {
      name: "project_freeze",
      description: "merge freeze from 2026-03-05",
      metadata: { type: "project", modified: "2026-09-01T00:00:00.000Z" },
    });
    const saved = await saveMemory(
      dir,
      { type: "user", description: "prefers pnpm over npm", body: "Use pnpm." },
      { now: () => FROZEN },
    );
    const fresh = parseFrontmatter(fs.readFileSync(saved.path, "utf8"));
    assert.deepEqual(fresh.data, {
      name: saved.file.replace(/\.md$/, ""),
      description: "prefers pnpm over npm",
      type: "user",
      modified: "2026-09-01T00:00:00.000Z",
    });
    const old = parseFrontmatter(fs.readFileSync(path.join(dir, "user_role.md"), "utf8")).data;
    await saveMemory(
      dir,
      { file: "user_role.md", type: "user", description: "a data scientist", body: "Go, not React." },
      { now: () => FROZEN },
    );
    const role = parseFrontmatter(fs.readFileSync(path.join(dir, "user_role.md"), "utf8")).data;
    assert.equal(role.name, "user-role", "a name other memories link to is kept");
    assert.equal(role.originSessionId, old.originSessionId);
    assert.equal(role.type, "user");
    assert.equal(role.modified, "2026-09-01T00:00:00.000Z");
  });

  it("brings a modified an agent's raw write keeps up to now, and leaves the rest byte for byte", async () => {
    const dir = copyFixture();
    const before = fs.readFileSync(path.join(dir, "feedback_testing.md"), "utf8");
    const edited = before.replace("never mocks.", "never mocks or fakes.");
    await writeMemoryText(dir, "feedback_testing.md", edited, { now: () => FROZEN });
    const after = fs.readFileSync(path.join(dir, "feedback_testing.md"), "utf8");
    assert.equal(after, edited.replace("2026-07-30T07:40:18.191Z", "2026-09-01T00:00:00.000Z"));
    const plain = "---\ndescription: d\ntype: user\n---\nmodified: not frontmatter\n";
    await writeMemoryText(dir, "plain.md", plain, { now: () => FROZEN });
    assert.equal(fs.readFileSync(path.join(dir, "plain.md"), "utf8"), plain);
  });
});

describe("[[name]] links", () => {
  it("finds links outside code, with aliases and sections cut off", () => {
    assert.deepEqual(
      linkNames(
        "See [[user-role]], [[testing|how we test]] and [[user-role#why]].\n`[[code]]`\n```\n[[fenced]]\n```\n",
      ),
      ["user-role", "testing"],
    );
    assert.deepEqual(linkNames("no links here"), []);
  });

  it("resolves by name, else by file stem, and says which point at nothing", async () => {
    const dir = copyFixture();
    const resolve = linkResolver(await scanHeaders(dir, { cache: null }));
    const body = parseFrontmatter(fs.readFileSync(path.join(dir, "feedback_testing.md"), "utf8")).body;
    assert.deepEqual(
      resolveLinks(body, resolve).map((link) => [link.name, link.file]),
      [
        ["user-role", "user_role.md"],
        ["deploy-checklist", null],
      ],
    );
    assert.equal(resolve("feedback_testing")?.file, "feedback_testing.md", "by stem");
    assert.equal(resolve("Feedback-Testing")?.file, "feedback_testing.md", "case folded");
    const notes = await unresolvedLinks(dir);
    assert.deepEqual(
      notes.map((note) => [note.code, note.file]),
      [["unresolved-link", "feedback_testing.md"]],
    );
    assert.match(notes[0].message, /\[\[deploy-checklist\]\]/);
  });
});

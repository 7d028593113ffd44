import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { relativeAge } from "../../src/cli/support/relative-age.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { makeTempDir } from "../helpers/temp.ts";

// A memory directory as Claude Code writes it (test/fixtures/claude-code), copied, so every mtime
// is "now", as after a copy or a checkout.
const repo = path.resolve(import.meta.dirname, "../..");
const FIXTURE = path.resolve(import.meta.dirname, "../fixtures/claude-code");

function setup() {
  const home = makeTempDir();
  const memoryDir = path.join(home, "memory");
  fs.cpSync(FIXTURE, memoryDir, { recursive: true });
  const run = (args: string[]) => runCliInProcess([...args, "--dir", memoryDir], { home, cwd: repo });
  return { memoryDir, run };
}

describe("memdir on Claude Code's memory files", () => {
  it("doctor accepts them and notes a link to nothing without failing", async () => {
    const { run } = setup();
    const human = await run(["doctor"]);
    assert.equal(human.code, 0, human.stdout + human.stderr);
    assert.match(human.stdout, /^note: feedback_testing\.md links to \[\[deploy-checklist\]\]/m);
    assert.match(human.stdout, /no issues in /);
    const json = await run(["doctor", "--json"]);
    assert.equal(json.code, 0);
    const report = JSON.parse(json.stdout) as { issues: unknown[]; notes: { code: string; file: string }[] };
    assert.deepEqual(report.issues, []);
    assert.deepEqual(
      report.notes.map((note) => [note.code, note.file]),
      [["unresolved-link", "feedback_testing.md"]],
    );
  });

  it("list shows every type and dates memories by modified", async () => {
    const { run } = setup();
    const json = await run(["list", "--json"]);
    assert.equal(json.code, 0, json.stderr);
    const rows = JSON.parse(json.stdout) as { file: string; type: string | null }[];
    assert.deepEqual(rows.map((row) => [row.file, row.type]).sort(), [
      ["feedback_testing.md", "feedback"],
      ["project_freeze.md", "project"],
      ["reference_dashboards.md", "reference"],
      ["user_role.md", "user"],
    ]);
    const before = Date.now();
    const human = await run(["list"]);
    // Its age counted from its `modified` (2026-07-30), not from the copy's mtime ("just now");
    // the run's minute is between `before` and now.
    const modified = Date.parse("2026-07-30T07:40:18.191Z");
    const ages = [before, Date.now()].map((at) => relativeAge(modified, Math.floor(at / 60_000) * 60_000));
    assert.ok(
      ages.some((age) => human.stdout.includes(`- [feedback] feedback_testing.md (${age}): `)),
      `${ages.join(" or ")} in ${human.stdout}`,
    );
    assert.match(human.stdout, /^- \[project\] project_freeze\.md \(/m);
    // Newest saved first: the two without `modified` (saved "now"), then 2026-07-30, then 2026-05-01.
    const order = human.stdout
      .trim()
      .split("\n")
      .map((line) => line.split(" ")[2]);
    assert.deepEqual(order.slice(2), ["feedback_testing.md", "reference_dashboards.md"]);
  });

  it("show lists a memory's links and what each resolves to", async () => {
    const { run } = setup();
    const human = await run(["show", "feedback_testing.md"]);
    assert.equal(human.code, 0, human.stderr);
    assert.ok(human.stdout.startsWith(fs.readFileSync(path.join(FIXTURE, "feedback_testing.md"), "utf8")));
    assert.match(
      human.stdout,
      /\nlinks:\n {2}\[\[user-role\]\] -> user_role\.md\n {2}\[\[deploy-checklist\]\] -> no such memory\n$/,
    );
    const json = JSON.parse((await run(["show", "feedback_testing.md", "--json"])).stdout);
    assert.equal(json.type, "feedback");
    assert.equal(json.name, "feedback-testing");
    assert.equal(json.modified, "2026-07-30T07:40:18.191Z");
    assert.deepEqual(
      json.links.map((link: { name: string; file: string | null }) => [link.name, link.file]),
      [
        ["user-role", "user_role.md"],
        ["deploy-checklist", null],
      ],
    );
    const plain = await run(["show", "reference_dashboards.md"]);
    assert.equal(plain.stdout, fs.readFileSync(path.join(FIXTURE, "reference_dashboards.md"), "utf8"));
  });

  it("recall --explain says which memory a link brought along", async () => {
    const { run } = setup();
    const result = await run([
      "recall",
      "do integration tests hit a real database or mocks?",
      "--selector",
      "lexical",
      "--k",
      "1",
      "--explain",
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^ {2}picked\s+\S+\s+feedback_testing\.md/m);
    assert.match(
      result.stdout,
      /^ {2}linked\s+-\s+user_role\.md\s+brought along: feedback_testing\.md links to it as \[\[user-role\]\]$/m,
    );
    assert.match(result.stdout, /would inject 2 memories/);
  });
});

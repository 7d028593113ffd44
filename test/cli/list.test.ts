import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import YAML from "yaml";
import { main } from "../../src/cli/main.ts";
import { askHelper } from "../../src/helper/ask.ts";
import { helperPaths } from "../../src/helper/paths.ts";
import { provenanceOf } from "../../src/memdir/trust/provenance.ts";
import { type CliResult, runCli, runProcess } from "../helpers/cli.ts";
import { makeMemdirPackage } from "../helpers/memdir-package.ts";
import { writeMemory } from "../helpers/memory.ts";
import { seededRandom, testSeed } from "../helpers/random.ts";
import { makeTempDir } from "../helpers/temp.ts";
import { processGone, waitFor } from "../helpers/wait.ts";

const repo = path.resolve(import.meta.dirname, "../..");

// Frontmatter shapes a memory dir holds: memdir's own (plain, quoted, stamped with provenance),
// Claude Code's (provenance and type under metadata:), and what the plain reader leaves to yaml
// (lists, anchors, multi-line values, numbers, comments, broken YAML).
const SHAPES: ((i: number) => string)[] = [
  (i) => `description: plain note ${i}\ntype: feedback`,
  (i) => `description: "quoted: note ${i}"\ntype: user\nsource: cli`,
  (i) =>
    `name: n-${i}\ndescription: 'it''s note ${i}'\ntype: project\nsource: extraction\nsession: 8f2c-${i}`,
  (i) =>
    `name: n-${i}\ndescription: claude ${i}\nmetadata:\n  type: reference\n  source: agent\n  session: s-${i}`,
  (i) => `description: listed ${i}\ntype: user\ntags: [a, b]\nsource: mcp`,
  (i) =>
    `description: anchored ${i}\ntype: feedback\nanchors:\n  - path: src/a.ts\n    hash: abc\nsource: sync`,
  (i) => `description: |\n  multi\n  line ${i}\ntype: feedback\nsession: 12345`,
  (i) => `description: &d anchored alias ${i}\ntype: user\nsource: *d`,
  (i) => `description: commented ${i} # not part of it\ntype: user\nsource: consolidation`,
  (i) => `description: [broken ${i}\ntype: user\nsource: cli`,
  (i) => `description: dup ${i}\ndescription: again\nsource: cli`,
  (i) => `description: "escaped \\"${i}\\""\ntype: user\nsession: "  spaced  "`,
];

/** What BASE's list did for a file's provenance: yaml over its frontmatter (within 30 lines). */
function referenceProvenance(text: string): { source: string | null; session: string | null } {
  const lines = text.split("\n");
  const close = lines.findIndex((line, i) => i > 0 && line === "---");
  if (lines[0] !== "---" || close < 0 || close >= 30) return { source: null, session: null };
  try {
    const data: unknown = YAML.parse(lines.slice(1, close).join("\n"), { prettyErrors: false });
    return data && typeof data === "object" && !Array.isArray(data)
      ? provenanceOf(data as Record<string, unknown>)
      : { source: null, session: null };
  } catch {
    return { source: null, session: null };
  }
}

describe("memdir list --json", () => {
  it("lists the same source and session from the header cache file as from the files, whatever their frontmatter", async (t) => {
    const seed = testSeed();
    t.diagnostic(`MEMDIR_TEST_SEED=${seed}`);
    const random = seededRandom(seed);
    const home = makeTempDir();
    const dir = path.join(home, "memory");
    // Enough memories for a cache file (headers.v8) at any threshold up to 500.
    const texts = new Map<string, string>();
    for (let i = 0; i < 520; i++) {
      const shape = SHAPES[Math.floor(random() * SHAPES.length)];
      const file = `${i % 7 === 0 ? "team/" : ""}m-${i}.md`;
      const text = `---\n${shape(i)}\n---\nbody ${i}\n`;
      texts.set(file, text);
      writeMemory(dir, file, text, new Date(Date.UTC(2026, 0, 1) + i * 60_000));
    }
    const list = (env: Record<string, string> = {}) =>
      runCli(["list", "--json", "--dir", dir], { home, cwd: repo, env });

    const cold = await list();
    assert.equal(cold.code, 0, cold.stderr);
    const cacheFile = path.join(dir, ".memdir-cache", "headers.v8");
    assert.ok(fs.existsSync(cacheFile), "the first list wrote the header cache file");
    const warm = await list();
    assert.equal(warm.stdout, cold.stdout, "from the cache file: byte for byte the same");
    const uncached = await list({ MEMDIR_NO_CACHE: "1" });
    assert.equal(uncached.stdout, cold.stdout, "without any cache: byte for byte the same");

    const entries = JSON.parse(warm.stdout) as Record<string, unknown>[];
    assert.equal(entries.length, texts.size);
    for (const entry of entries) {
      assert.deepEqual(Object.keys(entry), [
        "file",
        "path",
        "type",
        "description",
        "mtime",
        "source",
        "session",
      ]);
      const text = texts.get(entry.file as string) ?? "";
      assert.deepEqual(
        { source: entry.source, session: entry.session },
        referenceProvenance(text),
        `${entry.file}: ${JSON.stringify(text)} (MEMDIR_TEST_SEED=${seed})`,
      );
    }

    // A file changed behind the cache's back is read again.
    const changed = path.join(dir, "m-1.md");
    fs.writeFileSync(
      changed,
      "---\ndescription: rewritten\ntype: user\nsource: agent\nsession: new-one\n---\nb\n",
    );
    const after = JSON.parse((await list()).stdout) as Record<string, unknown>[];
    const entry = after.find((e) => e.file === "m-1.md");
    assert.deepEqual([entry?.description, entry?.source, entry?.session], ["rewritten", "agent", "new-one"]);
    const filtered = await runCli(["list", "--json", "--source", "agent", "--dir", dir], { home, cwd: repo });
    const agentFiles = (JSON.parse(filtered.stdout) as { file: string }[]).map((e) => e.file);
    assert.ok(agentFiles.includes("m-1.md"));
    assert.ok(
      agentFiles.every(
        (file) => referenceProvenance(fs.readFileSync(path.join(dir, file), "utf8")).source === "agent",
      ),
    );
  });
});

const DAY = 86_400_000;
/** The clock of the in-process runs below: a fixed Tuesday noon (UTC). */
const NOW = Date.parse("2026-11-10T12:00:00Z");

/**
 * A memory dir whose memories differ in type, provenance and age (ages from NOW, mid-unit so an
 * age never sits on a unit's edge).
 */
function filterFixture(): { home: string; dir: string } {
  const home = makeTempDir();
  const dir = path.join(home, "memory");
  const at = (ms: number) => new Date(NOW - ms);
  const file = (description: string, type: string, provenance: string) =>
    `---\ndescription: ${description}\ntype: ${type}\n${provenance}---\nbody\n`;
  writeMemory(dir, "feedback-fresh.md", file("fresh feedback", "feedback", "source: cli\n"), at(90_000));
  writeMemory(
    dir,
    "project-extracted.md",
    file("extracted in session s-1", "project", "source: extraction\nsession: s-1\n"),
    at(5 * 3_600_000 + 1_800_000),
  );
  writeMemory(
    dir,
    "user-older.md",
    file("extracted in session s-2", "user", "source: extraction\nsession: s-2\n"),
    at(2.5 * DAY),
  );
  writeMemory(dir, "reference-old.md", file("an old link", "reference", "source: mcp\n"), at(45 * DAY));
  // Saved (frontmatter `modified`) four days ago, though the file was copied just now.
  writeMemory(
    dir,
    "feedback-copied.md",
    file("copied feedback", "feedback", `modified: ${new Date(NOW - 4.5 * DAY).toISOString()}\n`),
    at(0),
  );
  return { home, dir };
}

/** `memdir ARGS` in this process with the clock at NOW: its exit code and output. */
async function runAtNow(args: string[], home: string): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const io = {
    stdout: (text: string) => {
      stdout += text;
    },
    stderr: (text: string) => {
      stderr += text;
    },
  };
  const code = await main(["node", "memdir", ...args], {
    io,
    env: { HOME: home, MEMDIR_HELPER: "0" },
    now: () => NOW,
  });
  return { code, stdout, stderr };
}

const listedFiles = (result: CliResult) =>
  (JSON.parse(result.stdout) as { file: string }[]).map((m) => m.file);

describe("memdir list: filters and ages", () => {
  it("shows each memory's age in words, newest first, and keeps ISO times in --json", async () => {
    const { home, dir } = filterFixture();
    const human = await runAtNow(["list", "--dir", dir], home);
    assert.equal(human.code, 0, human.stderr);
    assert.equal(
      human.stdout,
      [
        "- [feedback] feedback-fresh.md (1 minute ago): fresh feedback",
        "- [project] project-extracted.md (5 hours ago): extracted in session s-1",
        "- [user] user-older.md (2 days ago): extracted in session s-2",
        "- [feedback] feedback-copied.md (4 days ago): copied feedback",
        "- [reference] reference-old.md (1 month ago): an old link",
        "",
      ].join("\n"),
    );
    const json = JSON.parse((await runAtNow(["list", "--json", "--dir", dir], home)).stdout) as {
      mtime: string;
    }[];
    assert.equal(json[0].mtime, new Date(NOW - 90_000).toISOString());
  });

  it("filters by --type, --source, --session and --since, and --limit keeps the newest", async () => {
    const { home, dir } = filterFixture();
    const list = async (...flags: string[]) => {
      const result = await runAtNow(["list", "--json", "--dir", dir, ...flags], home);
      assert.equal(result.code, 0, result.stderr);
      return listedFiles(result);
    };
    assert.deepEqual(await list("--type", "feedback"), ["feedback-fresh.md", "feedback-copied.md"]);
    assert.deepEqual(await list("--source", "extraction"), ["project-extracted.md", "user-older.md"]);
    assert.deepEqual(await list("--session", "s-2"), ["user-older.md"]);
    assert.deepEqual(await list("--source", "extraction", "--type", "user"), ["user-older.md"]);
    // An age, a date and yesterday (each day's start in local time: the dates are chosen so that
    // every zone from UTC-12 to UTC+14 lists the same).
    assert.deepEqual(await list("--since", "3d"), [
      "feedback-fresh.md",
      "project-extracted.md",
      "user-older.md",
    ]);
    assert.deepEqual(await list("--since", "1w"), [
      "feedback-fresh.md",
      "project-extracted.md",
      "user-older.md",
      "feedback-copied.md",
    ]);
    assert.deepEqual(await list("--since", "2026-11-07"), [
      "feedback-fresh.md",
      "project-extracted.md",
      "user-older.md",
    ]);
    assert.deepEqual(await list("--since", "yesterday"), ["feedback-fresh.md", "project-extracted.md"]);
    assert.deepEqual(await list("--limit", "2"), ["feedback-fresh.md", "project-extracted.md"]);
    assert.deepEqual(await list("--source", "extraction", "--limit", "1"), ["project-extracted.md"]);
    const none = await runAtNow(["list", "--dir", dir, "--session", "nope"], home);
    assert.equal(none.stdout, `no memories of session nope in ${dir}\n`);
  });

  it("refuses a bad --limit, --since or --type with a usage error (exit 2) that says what it takes", async () => {
    const { home, dir } = filterFixture();
    for (const [flags, says] of [
      [["--limit", "0"], /--limit takes a whole number/],
      [["--limit", "ten"], /--limit takes a whole number/],
      [["--since", "last tuesday"], /--since takes a date \(2026-11-01\).*an age \(12h, 7d, 2w\)/],
      [["--since", "2026-02-30"], /--since takes a date/],
      [["--type", "note"], /Allowed choices are user, feedback, project, reference/],
    ] as const) {
      const result = await runCli(["list", "--dir", dir, ...flags], { home, cwd: repo });
      assert.equal(result.code, 2, `${flags.join(" ")}: ${result.stderr}`);
      assert.match(result.stderr, says);
      assert.equal(result.stdout, "");
    }
  });
});

describe("memdir list through the memory helper", () => {
  const pkg = makeMemdirPackage();
  const helpers = new Set<number>();
  after(() => {
    for (const pid of helpers)
      try {
        process.kill(pid, "SIGKILL");
      } catch {} // gone already
  });

  it("filters the same through bin/memdir.js with the helper answering as without it", async () => {
    const home = makeTempDir("memdir-list-helper-");
    const dir = path.join(home, "memory");
    const now = Date.now();
    const file = (type: string, provenance: string) =>
      `---\ndescription: a ${type}\ntype: ${type}\n${provenance}---\nb\n`;
    writeMemory(dir, "feedback-a.md", file("feedback", "source: cli\n"), new Date(now - 2.5 * 3_600_000));
    writeMemory(
      dir,
      "project-b.md",
      file("project", "source: extraction\nsession: s-9\n"),
      new Date(now - 3_600_000),
    );
    writeMemory(dir, "user-c.md", file("user", "source: extraction\n"), new Date(now - 10 * DAY));
    const run = (args: string[], env: Record<string, string> = {}) =>
      runProcess(process.execPath, [pkg.bin, ...args], {
        cwd: home,
        env: { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1", ...env },
      });
    const paths = helperPaths(home, pkg.mainFile);
    assert.ok(paths, "a helper is possible here");
    const started = await run(["helper", "start"]);
    assert.equal(started.code, 0, started.stderr);
    let pid = 0;
    await waitFor(
      async () => {
        const answer = await askHelper(paths, { op: "status" }, 1000);
        if (answer.kind === "answered") {
          pid = answer.pid;
          helpers.add(pid);
        }
        return answer.kind === "answered";
      },
      { what: "the helper to answer" },
    );
    const served = async () => {
      const answer = await askHelper(paths, { op: "status" }, 2000);
      assert.equal(answer.kind, "answered");
      return (answer as { lines: { requests: number }[] }).lines[0].requests;
    };
    for (const [flags, files] of [
      [["--type", "project"], ["project-b.md"]],
      [
        ["--source", "extraction"],
        ["project-b.md", "user-c.md"],
      ],
      [["--session", "s-9"], ["project-b.md"]],
      [
        ["--since", "1d"],
        ["project-b.md", "feedback-a.md"],
      ],
      [["--limit", "1"], ["project-b.md"]],
    ] as const) {
      const before = await served();
      const through = await run(["list", "--json", "--dir", dir, ...flags]);
      assert.equal(await served(), before + 1, `the helper answered list ${flags.join(" ")}`);
      assert.equal(through.code, 0, through.stderr);
      assert.deepEqual(listedFiles(through), files, `through the helper: ${flags.join(" ")}`);
      const alone = await run(["list", "--json", "--dir", dir, ...flags], { MEMDIR_HELPER: "0" });
      assert.equal(alone.stdout, through.stdout, `without the helper: ${flags.join(" ")}`);
    }
    const human = await run(["list", "--dir", dir, "--type", "feedback"]);
    assert.equal(human.stdout, "- [feedback] feedback-a.md (2 hours ago): a feedback\n");
    const bad = await run(["list", "--dir", dir, "--limit", "0", "--json"]);
    assert.equal(bad.code, 2);
    assert.equal((JSON.parse(bad.stdout) as { error: { code: string } }).error.code, "usage");
    const stop = await run(["helper", "stop"]);
    assert.equal(stop.code, 0, stop.stderr);
    await waitFor(() => processGone(pid), { what: "the stopped helper to exit" });
  });
});

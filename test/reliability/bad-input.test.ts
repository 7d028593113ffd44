// Reliability: bad input. A memory dir holding gen-scale's edge cases (when ../shared
// is there) plus a binary `.md`, a 50 MB memory, invalid UTF-8, an unreadable file, symlink loops
// and a 1 MB MEMORY.md: nothing crashes, the good memories are still recalled (library and CLI),
// reads stay within their caps, and `memdir doctor` names each bad file. Real files, real
// processes; every failure message says what was lost.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { before, describe, it } from "node:test";
import { isMemdirError } from "../../src/errors.ts";
import { readMemoryCapped } from "../../src/memdir/fs/read.ts";
import { HeaderCache } from "../../src/memdir/scan/header-cache.ts";
import { scanHeaders } from "../../src/memdir/scan/scan.ts";
import { recall } from "../../src/recall/recall.ts";
import { createLexicalSelector } from "../../src/recall/select-lexical.ts";
import type { Selector } from "../../src/recall/selector.ts";
import { runCli } from "../helpers/cli.ts";
import { nodeArgsFor } from "../helpers/node-entry.ts";
import { recordReliability } from "../helpers/reliability-counts.ts";
import { makeTempDir, sharedDir } from "../helpers/temp.ts";
import { waitFor } from "../helpers/wait.ts";

const TARGET = "project-zebra-freeze.md";
const QUERY = "can we deploy the zebra cluster on friday?";
/** The good memories every recall must still find, whatever else is in the dir. */
const GOOD: Record<string, string> = {
  [TARGET]:
    "---\ndescription: zebra cluster deploys are frozen on Fridays\ntype: project\n---\nNo deploys to the zebra cluster on Fridays.\nWhy: the on-call team is thin at weekends.\n",
  "feedback-ocelot-logging.md":
    "---\ndescription: ocelot service must use the shared logger\ntype: feedback\n---\nThe ocelot service logs through the shared logger.\n",
  "user-prefers-tabs.md":
    "---\ndescription: user prefers tabs for indentation\ntype: user\n---\nThe user wants tabs, never spaces.\n",
};
const HUGE_BYTES = 50 * 1024 * 1024;
/** Surfaced memory text is capped at 4096 bytes; the header, caveat and truncation note add a little. */
const MAX_SURFACED_MESSAGE_BYTES = 4096 + 1024;

interface Fixture {
  home: string;
  memoryDir: string;
  /** gen-scale's manifest entries when ../shared exists (else empty). */
  manifest: { path: string; type: string | null; description: string | null }[];
  /** True when this process can still read a chmod 000 file (root, as in CI). */
  unreadableIsReadable: boolean;
}

let fixture: Fixture;
// Made at the top level so it is removed after the whole file, not after the `before` hook.
const base = makeTempDir("memdir-bad-input-");

before(() => {
  const home = path.join(base, "home");
  const memoryDir = path.join(base, "memory");
  fs.mkdirSync(home);
  let manifest: Fixture["manifest"] = [];
  let generatedIndex = "";
  const shared = sharedDir();
  if (shared) {
    const generated = spawnSync(
      process.execPath,
      [path.join(shared, "bench", "gen-scale.mjs"), "--n", "300", "--out", memoryDir],
      { encoding: "utf8" },
    );
    assert.equal(generated.status, 0, `gen-scale failed: ${generated.stderr}`);
    manifest = fs
      .readFileSync(`${memoryDir}.manifest.jsonl`, "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line));
    generatedIndex = fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8");
  } else fs.mkdirSync(memoryDir);

  for (const [file, text] of Object.entries(GOOD)) fs.writeFileSync(path.join(memoryDir, file), text);
  // A binary file named .md: NUL bytes and every other byte value.
  const binary = Buffer.alloc(4096);
  for (let i = 0; i < binary.length; i++) binary[i] = (i * 37) % 256;
  fs.writeFileSync(path.join(memoryDir, "binary.md"), binary);
  // A 50 MB memory: a pasted deploy log, with a real frontmatter on top.
  const fd = fs.openSync(path.join(memoryDir, "huge.md"), "w");
  fs.writeSync(fd, "---\ndescription: zebra cluster deploy log dump\ntype: reference\n---\n");
  const line = "2026-01-02T10:00:00Z deploy zebra cluster step ok, latency 12 ms, retries 0\n";
  const chunk = line.repeat(Math.ceil((1024 * 1024) / line.length));
  for (let written = 0; written < HUGE_BYTES; written += chunk.length) fs.writeSync(fd, chunk);
  fs.closeSync(fd);
  // Invalid UTF-8 in the description and in the body.
  fs.writeFileSync(
    path.join(memoryDir, "invalid-utf8.md"),
    Buffer.concat([
      Buffer.from("---\ndescription: broken bytes "),
      Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
      Buffer.from(" in a note\ntype: user\n---\nbody "),
      Buffer.from([0xe2, 0x82, 0x0a, 0x80, 0xbf]),
      Buffer.from(" end\n"),
    ]),
  );
  // An unreadable file (chmod 000). Root reads it anyway: remember which behaviour applies.
  const unreadable = path.join(memoryDir, "unreadable.md");
  fs.writeFileSync(
    unreadable,
    "---\ndescription: secret plans nobody may read\ntype: project\n---\nhidden\n",
  );
  fs.chmodSync(unreadable, 0o000);
  let unreadableIsReadable = true;
  try {
    fs.readFileSync(unreadable);
  } catch {
    unreadableIsReadable = false;
  }
  // Symlink loops: a file linked to itself, two files linked to each other, a folder linked to its parent.
  fs.symlinkSync("loop.md", path.join(memoryDir, "loop.md"));
  fs.symlinkSync("ping.md", path.join(memoryDir, "pong.md"));
  fs.symlinkSync("pong.md", path.join(memoryDir, "ping.md"));
  fs.mkdirSync(path.join(memoryDir, "nested"));
  fs.symlinkSync("..", path.join(memoryDir, "nested", "again"));
  // A 1 MB MEMORY.md: the real pointers first, then a pasted wall of text.
  const pointers = Object.entries(GOOD)
    .map(([file, text]) => `- [${file}](${file}) — ${/description: (.*)/.exec(text)?.[1]}`)
    .join("\n");
  let index = `${generatedIndex}${pointers}\n`;
  const filler = "A long paste that does not belong in the index, repeated until it weighs a megabyte.\n";
  while (index.length < 1024 * 1024) index += filler;
  fs.writeFileSync(path.join(memoryDir, "MEMORY.md"), index);
  fixture = { home, memoryDir, manifest, unreadableIsReadable };
});

describe("bad input", () => {
  it("the header scan tolerates every bad file and keeps every good memory", async () => {
    const headers = await scanHeaders(fixture.memoryDir, { cache: null });
    const byFile = new Map(headers.map((h) => [h.file, h]));
    const kept = [...Object.keys(GOOD), ...fixture.manifest.map((entry) => entry.path)];
    // The hostile files planted above (binary, 50 MB, broken UTF-8, unreadable, link loops, 1 MB index).
    const badFiles = [
      "binary.md",
      "huge.md",
      "invalid-utf8.md",
      "unreadable.md",
      "loop.md",
      "ping.md",
      "pong.md",
      "nested/again",
      "MEMORY.md",
    ].filter((file) => fs.lstatSync(path.join(fixture.memoryDir, file), { throwIfNoEntry: false }));
    recordReliability("faults", {
      tried: badFiles.length,
      losses: kept.filter((file) => !byFile.has(file)).length,
    });
    for (const file of Object.keys(GOOD))
      assert.ok(byFile.has(file), `lost ${file}: the scan dropped a good memory next to bad files`);
    assert.equal(byFile.get(TARGET)?.description, "zebra cluster deploys are frozen on Fridays");
    for (const entry of fixture.manifest) {
      const header = byFile.get(entry.path);
      assert.ok(header, `lost ${entry.path} (gen-scale ${JSON.stringify(entry)}) from the scan`);
      assert.equal(header.description, entry.description, `wrong description for ${entry.path}`);
      assert.equal(header.type, entry.type, `wrong type for ${entry.path}`);
    }
    for (const link of ["loop.md", "ping.md", "pong.md"])
      assert.ok(!byFile.has(link), `the symlink loop ${link} was scanned as a memory`);
    assert.ok(
      !headers.some((h) => h.file.startsWith("nested/again/")),
      "the scan followed a folder symlink back to its parent",
    );
    assert.equal(byFile.get("huge.md")?.description, "zebra cluster deploy log dump");
    assert.match(byFile.get("invalid-utf8.md")?.description ?? "", /^broken bytes \uFFFD+\( in a note$/);
    assert.equal(byFile.get("binary.md")?.type ?? null, null, "a binary file has no memory type");
    assert.equal(
      byFile.has("unreadable.md"),
      fixture.unreadableIsReadable,
      fixture.unreadableIsReadable
        ? "running as root, the chmod 000 file is readable and should be scanned like any file"
        : "a file this process cannot read should be skipped, not fatal",
    );
  });

  it("recall() still surfaces the good memory, and the 50 MB memory only up to its cap", async () => {
    const result = await recall({
      memoryDir: fixture.memoryDir,
      query: QUERY,
      selector: createLexicalSelector(),
      scanCache: new HeaderCache(),
    });
    const picked = result.selected.map((s) => s.file);
    assert.ok(picked.includes(TARGET), `lost ${TARGET}: recall picked ${picked.join(", ")}`);
    for (const memory of result.memories) {
      const bytes = Buffer.byteLength(memory.message.content as string);
      assert.ok(bytes <= MAX_SURFACED_MESSAGE_BYTES, `${memory.file} surfaced ${bytes} bytes, over the cap`);
    }
    const huge = result.memories.find((m) => m.file === "huge.md");
    if (huge) {
      assert.equal(huge.truncated, "bytes", "the 50 MB memory was surfaced without saying it was cut");
      assert.match(huge.message.content as string, /truncated at the 4096-byte limit/);
    }
  });

  it("memdir recall --json (a real process) still recalls the good memory", async () => {
    const result = await runCli(
      ["recall", QUERY, "--dir", fixture.memoryDir, "--json", "--selector", "lexical"],
      {
        home: fixture.home,
        timeoutMs: 120_000,
      },
    );
    assert.equal(result.code, 0, `memdir recall failed: ${result.stderr}`);
    const output = JSON.parse(result.stdout) as {
      selected: { file: string }[];
      messages: { content: string }[];
    };
    const picked = output.selected.map((s) => s.file);
    assert.ok(picked.includes(TARGET), `lost ${TARGET}: memdir recall picked ${picked.join(", ")}`);
    for (const message of output.messages)
      assert.ok(
        Buffer.byteLength(message.content) <= MAX_SURFACED_MESSAGE_BYTES,
        "a surfaced memory is over the cap",
      );
  });

  it("memdir doctor --json names each bad file with a clear message", async () => {
    const result = await runCli(["doctor", "--dir", fixture.memoryDir, "--json"], {
      home: fixture.home,
      timeoutMs: 120_000,
    });
    assert.equal(result.code, 1, `doctor should exit 1 with problems present: ${result.stderr}`);
    const { issues } = JSON.parse(result.stdout) as {
      issues: { code: string; file: string; message: string }[];
    };
    const about = (file: string, code: string) => issues.find((i) => i.file === file && i.code === code);
    const expect = (file: string, code: string, pattern: RegExp) => {
      const issue = about(file, code);
      assert.ok(
        issue,
        `doctor said nothing (${code}) about ${file}; it said: ${JSON.stringify(issues.filter((i) => i.file === file))}`,
      );
      assert.match(issue.message, pattern);
      assert.ok(issue.message.includes(file), `doctor's message does not name ${file}: ${issue.message}`);
    };
    expect("binary.md", "binary", /binary/);
    expect("huge.md", "too-large", /50\.0 MB.*4096 bytes/);
    expect("invalid-utf8.md", "invalid-utf8", /not valid UTF-8/);
    expect("loop.md", "bad-link", /symbolic link loop/);
    expect("ping.md", "bad-link", /symbolic link loop/);
    expect("MEMORY.md", "index-too-large", /only the first 25000 are loaded/);
    if (fixture.unreadableIsReadable) {
      assert.equal(
        about("unreadable.md", "unreadable"),
        undefined,
        "root can read the file: nothing to report",
      );
    } else expect("unreadable.md", "unreadable", /cannot be read \(permission denied\)/);
    for (const file of Object.keys(GOOD)) {
      const complaints = issues.filter((i) => i.file === file);
      assert.deepEqual(complaints, [], `doctor complained about the good memory ${file}`);
    }
  });

  it("a 50 MB memory costs the scan and the capped read only their caps (child process)", async () => {
    const child = spawnSync(
      process.execPath,
      [
        ...nodeArgsFor(path.join(import.meta.dirname, "workers", "capped-read.ts")),
        fixture.memoryDir,
        "huge.md",
      ],
      { encoding: "utf8", timeout: 60_000 },
    );
    assert.equal(child.status, 0, `the capped read crashed: ${child.stderr}`);
    const measured = JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "{}");
    assert.equal(measured.description, "zebra cluster deploy log dump", "the huge memory's header was lost");
    assert.ok(measured.fileBytes >= HUGE_BYTES, "the fixture is not 50 MB");
    assert.equal(measured.truncated, "bytes");
    assert.ok(measured.bytes <= 4096, `the capped read returned ${measured.bytes} bytes of the file`);
    assert.ok(
      measured.rssGrowthMb < 30,
      `scan + capped read of a 50 MB file grew the resident set by ${measured.rssGrowthMb.toFixed(1)} MB (reads are not bounded)`,
    );
  });

  it("a file that vanishes between selection and read is skipped, the others still surface", async () => {
    const dir = makeTempDir("memdir-vanish-");
    for (const [file, text] of Object.entries(GOOD)) fs.writeFileSync(path.join(dir, file), text);
    fs.writeFileSync(
      path.join(dir, "project-zebra-rollback.md"),
      "---\ndescription: zebra cluster rollback needs two approvals\ntype: project\n---\nTwo approvals for a zebra rollback.\n",
    );
    const lexical = createLexicalSelector();
    // Deletes the file it ranked second, after the scan listed it and before recall reads it.
    const vanishing: Selector = {
      name: "vanishing",
      async select(request, signal) {
        const selection = await lexical.select(request, signal);
        const doomed = selection.picks.find((pick) => pick.file !== TARGET);
        if (doomed) fs.rmSync(path.join(dir, doomed.file));
        return selection;
      },
    };
    const result = await recall({
      memoryDir: dir,
      query: QUERY,
      selector: vanishing,
      scanCache: new HeaderCache(),
    });
    assert.ok(
      result.selected.some((s) => s.file === TARGET),
      `lost ${TARGET} because another memory vanished mid-recall`,
    );
    const skipped = result.skipped.find((s) => s.file === "project-zebra-rollback.md");
    assert.ok(
      skipped,
      `the vanished memory was neither surfaced nor reported: ${JSON.stringify(result.skipped)}`,
    );
    assert.match(skipped.reason, /could not be read/);
    await assert.rejects(readMemoryCapped(path.join(dir, "project-zebra-rollback.md")), (error: unknown) =>
      isMemdirError(error, "not-found"),
    );
  });

  it("files created and deleted by another process during scans never break a scan or a recall", async () => {
    const dir = makeTempDir("memdir-churn-");
    for (const [file, text] of Object.entries(GOOD)) fs.writeFileSync(path.join(dir, file), text);
    const churn = spawn(
      process.execPath,
      [...nodeArgsFor(path.join(import.meta.dirname, "workers", "churn-files.ts")), dir, "2500"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    churn.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    const exited = new Promise<number | null>((resolve) => churn.on("close", resolve));
    await waitFor(() => output.includes("started"), { interval: 10, what: "the churning process to start" });
    const selector = createLexicalSelector();
    const cache = new HeaderCache();
    let rounds = 0;
    while (churn.exitCode === null && rounds < 200) {
      const headers = await scanHeaders(dir, { cache });
      for (const file of Object.keys(GOOD))
        assert.ok(
          headers.some((h) => h.file === file),
          `round ${rounds}: lost ${file} while other files churned`,
        );
      const result = await recall({ memoryDir: dir, query: QUERY, selector, scanCache: cache });
      assert.ok(
        result.selected.some((s) => s.file === TARGET),
        `round ${rounds}: recall lost ${TARGET} while other files churned`,
      );
      rounds++;
    }
    assert.equal(await exited, 0, "the churning process failed");
    assert.ok(rounds > 0, "no scan ran while files churned");
  });
});

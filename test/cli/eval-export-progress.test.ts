// A cold eval of a large memory dir reads, indexes and runs every query: on a terminal it counts
// them on stderr (docs/design.md#progress); with --json stdout stays one JSON document.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { runCliInProcess } from "../helpers/cli.ts";
import { memory, writeMemory } from "../helpers/memory.ts";
import { makeTempDir } from "../helpers/temp.ts";

const COUNT = 200;

function evalData(): { home: string; data: string } {
  const home = makeTempDir();
  const data = path.join(home, "data");
  const dir = path.join(data, "mem");
  for (let i = 0; i < COUNT; i++)
    writeMemory(
      dir,
      `deploy-${i}.md`,
      memory(`deploy pipeline note ${i}`, `the staging deploy step ${i}`, "project"),
    );
  const queries = [3, 40, 77].map((i) => ({
    question: `deploy pipeline note ${i}`,
    gold: [`deploy-${i}.md`],
    conv: "mem",
  }));
  fs.writeFileSync(path.join(data, "queries.jsonl"), queries.map((q) => JSON.stringify(q)).join("\n"));
  return { home, data };
}

describe("eval progress", () => {
  it("counts the reading, indexing and queries on a terminal; with --json draws nothing and prints clean JSON", async () => {
    const { home, data } = evalData();
    const env = { MEMDIR_PROGRESS_AFTER_MS: "0", MEMDIR_HELPER: "0" };
    const shown = await runCliInProcess(["eval", "--data", data], { home, env, stderrIsTTY: true });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stderr, new RegExp(`memdir: reading memory headers ${COUNT}/${COUNT}, done`));
    assert.match(shown.stderr, /memdir: evaluating queries 3\/3, done/);
    assert.match(shown.stdout, /eval: 3 queries/);

    const json = await runCliInProcess(["eval", "--data", data, "--json"], { home, env, stderrIsTTY: true });
    assert.equal(json.code, 0, json.stderr);
    assert.doesNotMatch(json.stderr, /memdir: /);
    assert.equal(JSON.parse(json.stdout).queries, 3);

    const piped = await runCliInProcess(["eval", "--data", data], { home, env });
    assert.doesNotMatch(piped.stderr, /memdir: /);
  });

  it("export counts the files it reads on a terminal, and nothing into a pipe", async () => {
    const { home, data } = evalData();
    const env = { MEMDIR_PROGRESS_AFTER_MS: "0", MEMDIR_HELPER: "0" };
    const dir = path.join(data, "mem");
    const shown = await runCliInProcess(["export", "--dir", dir], { home, env, stderrIsTTY: true });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stderr, new RegExp(`memdir: exporting memories ${COUNT}/${COUNT}, done`));
    assert.equal(shown.stdout.trim().split("\n").length, COUNT, "stdout holds only the export");
    const piped = await runCliInProcess(["export", "--dir", dir], { home, env });
    assert.doesNotMatch(piped.stderr, /memdir: /);
  });
});

describe("dream progress", () => {
  it("counts reading, comparing and merging on a terminal; nothing into a pipe or with --json", async () => {
    const home = makeTempDir();
    const env = { MEMDIR_PROGRESS_AFTER_MS: "0", MEMDIR_HELPER: "0" };
    const fresh = () => {
      const dir = path.join(makeTempDir(), "mem");
      for (let i = 0; i < 40; i++)
        writeMemory(
          dir,
          `note-${i}.md`,
          memory(`staging deploy rule ${i % 20}`, `the staging deploy step ${i % 20} waits for review`),
        );
      return dir;
    };
    const shown = await runCliInProcess(["dream", "--force", "--dir", fresh()], {
      home,
      env,
      stderrIsTTY: true,
    });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stderr, /memdir: reading memories 40\/40, done/);
    assert.match(shown.stderr, /memdir: comparing memories 40\/40, done/);
    assert.match(shown.stderr, /memdir: merging duplicates 20\/20, done/);
    assert.match(shown.stdout, /merged note-0\.md into note-20\.md \(exact\)/);

    const piped = await runCliInProcess(["dream", "--force", "--dir", fresh()], { home, env });
    assert.equal(piped.code, 0, piped.stderr);
    assert.doesNotMatch(piped.stderr, /memdir: /);

    const json = await runCliInProcess(["dream", "--force", "--dir", fresh(), "--json"], {
      home,
      env,
      stderrIsTTY: true,
    });
    assert.equal(json.code, 0, json.stderr);
    assert.doesNotMatch(json.stderr, /memdir: /);
    assert.equal(JSON.parse(json.stdout).status, "done");
  });
});

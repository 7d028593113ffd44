// memdir's repositories (the history, the sync clones) run without git's automatic
// `maintenance run --auto` after each commit and fetch; `housekeepIfDue` starts it when git would
// find work (docs/design.md#sync-stat-cache). Real git in a real temp repository.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { type GitRepository, git, housekeepIfDue } from "../../../src/memdir/location/git.ts";
import { makeTempDir } from "../../helpers/temp.ts";
import { waitFor } from "../../helpers/wait.ts";

// git gc removes the sample folder once it has packed everything in it.
const looseInSample = (repository: GitRepository) => {
  const folder = path.join(repository.gitDir, "objects", "17");
  if (!fs.existsSync(folder)) return 0;
  return fs.readdirSync(folder).filter((name) => /^[0-9a-f]{38}$/.test(name)).length;
};

// Notes whose blobs land in objects/17, the folder git samples to guess the loose-object count:
// 40 of them are as many as ~10,000 objects spread evenly, past gc.auto's 6,700.
const notesInSample = (count: number) => {
  const found: string[] = [];
  for (let i = 0; found.length < count; i++) {
    const text = `note ${i}\n`;
    const id = crypto
      .createHash("sha1")
      .update(`blob ${Buffer.byteLength(text)}\0${text}`)
      .digest("hex");
    if (id.startsWith("17")) found.push(text);
  }
  return found;
};

describe("housekeeping of memdir's own repositories", () => {
  it("commits leave loose objects behind, and a repository with too many is packed", async () => {
    const workTree = makeTempDir("memdir-housekeeping-");
    const repository: GitRepository = { gitDir: path.join(workTree, ".git"), workTree, label: "test" };
    await git(repository, ["init", "-q"]);
    const notes = notesInSample(40);
    for (const [i, text] of notes.entries()) fs.writeFileSync(path.join(workTree, `note-${i}.md`), text);
    await git(repository, ["add", "-A"]);
    await git(repository, ["commit", "-q", "--no-verify", "-m", "many notes"]);
    const before = looseInSample(repository);
    assert.ok(before > 27, `${before} loose objects in the sample: the commit ran no maintenance`);
    await housekeepIfDue(repository);
    // git detaches its `gc --auto`: awaited by what it leaves, the objects packed.
    await waitFor(() => looseInSample(repository) === 0, { what: "the loose objects packed" });
    assert.equal(
      fs.readdirSync(path.join(repository.gitDir, "objects", "pack")).filter((n) => n.endsWith(".pack"))
        .length,
      1,
    );
    assert.equal((await git(repository, ["ls-files"])).split("\n").filter(Boolean).length, notes.length);
  });
});

// A state.json edited by hand or damaged (src/sync/state.ts readSyncState): a project entry memdir
// did not write is not trusted, and the project syncs as on its first sync, a merge that deletes
// nothing (docs/design.md#sync-stat-cache). Real git with a local bare repository, real temp dirs.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { openClone } from "../../src/sync/repository.ts";
import { type SyncTarget, syncFolder } from "../../src/sync/run.ts";
import { memory, twoSyncTargets } from "../helpers/sync-machines.ts";

const KEY = "github.com/acme/shop";
const later = () => Date.now() + 60_000;

function memoryFiles(target: SyncTarget): string[] {
  return fs
    .readdirSync(target.localDir)
    .filter((name) => name.endsWith(".md") && name !== "MEMORY.md")
    .sort();
}

/** The name of the machine's one folder entry (the project key and its memory dir, src/sync/state.ts). */
const folderOf = (projects: Record<string, unknown>) =>
  Object.keys(projects).find((name) => name.startsWith(`${KEY}:`)) ?? KEY;

const EDITS: [string, (state: { projects: Record<string, unknown> }) => void][] = [
  [
    "pulls that are not a list",
    (state) => Object.assign(state.projects[folderOf(state.projects)] as object, { pulls: "x" }),
  ],
  [
    "a base that is not a commit",
    (state) => Object.assign(state.projects[folderOf(state.projects)] as object, { base: 42 }),
  ],
  [
    "a project entry that is null",
    (state) => Object.assign(state.projects, { [folderOf(state.projects)]: null }),
  ],
];

describe("memdir sync: a state.json edited by hand", () => {
  for (const [what, edit] of EDITS)
    it(`syncs with ${what}: no crash, nothing lost, and the next sync is quiet`, async () => {
      const { a, b } = twoSyncTargets("memdir-state-file-");
      fs.writeFileSync(path.join(a.localDir, "project-one.md"), memory("the first memory", "one"));
      fs.writeFileSync(path.join(a.localDir, "project-two.md"), memory("the second memory", "two"));
      await syncFolder(a, { now: later });
      await syncFolder(b, { now: later });
      // Each side moves on: a deletes one and adds one, b adds one of its own, not pushed yet.
      fs.rmSync(path.join(a.localDir, "project-two.md"));
      fs.writeFileSync(path.join(a.localDir, "project-three.md"), memory("the third memory", "three"));
      await syncFolder(a, { now: later });
      fs.writeFileSync(path.join(b.localDir, "project-four.md"), memory("the fourth memory", "four"));
      const statePath = path.join(openClone(b.root, b.url).dir, "state.json");
      const state = JSON.parse(fs.readFileSync(statePath, "utf8")) as { projects: Record<string, unknown> };
      edit(state);
      fs.writeFileSync(statePath, JSON.stringify(state));
      await syncFolder(b, { now: later });
      // With no base to trust, the deletion made on a is not taken: every file is kept.
      assert.deepEqual(memoryFiles(b), [
        "project-four.md",
        "project-one.md",
        "project-three.md",
        "project-two.md",
      ]);
      const quiet = await syncFolder(b, { now: later });
      assert.deepEqual(
        { pushed: quiet.pushed, pulled: quiet.pulled, skipped: quiet.skipped, conflicts: quiet.conflicts },
        { pushed: 0, pulled: 0, skipped: [], conflicts: [] },
      );
      await syncFolder(a, { now: later });
      assert.ok(memoryFiles(a).includes("project-four.md"));
    });
});

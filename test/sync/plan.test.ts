import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { planSync } from "../../src/sync/plan.ts";

const map = (entries: Record<string, string>) => new Map(Object.entries(entries));

describe("planSync: the merge rules", () => {
  const cases: [string, Record<string, string>, Record<string, string>, Record<string, string>, unknown][] = [
    ["unchanged everywhere: nothing", { a: "1" }, { a: "1" }, { a: "1" }, []],
    [
      "changed here only: pushed",
      { a: "1" },
      { a: "2" },
      { a: "1" },
      [{ kind: "push", file: "a", blob: "2" }],
    ],
    [
      "changed there only: pulled",
      { a: "1" },
      { a: "1" },
      { a: "3" },
      [{ kind: "pull", file: "a", blob: "3" }],
    ],
    [
      "new on each side: both kept",
      {},
      { a: "1" },
      { b: "2" },
      [
        { kind: "push", file: "a", blob: "1" },
        { kind: "pull", file: "b", blob: "2" },
      ],
    ],
    [
      "deleted here: the deletion is pushed",
      { a: "1" },
      {},
      { a: "1" },
      [{ kind: "push", file: "a", blob: null }],
    ],
    [
      "deleted there: the deletion is pulled",
      { a: "1" },
      { a: "1" },
      {},
      [{ kind: "pull", file: "a", blob: null }],
    ],
    [
      "deleted here, changed there: the change wins",
      { a: "1" },
      {},
      { a: "2" },
      [{ kind: "pull", file: "a", blob: "2" }],
    ],
    [
      "changed here, deleted there: the change wins",
      { a: "1" },
      { a: "2" },
      {},
      [{ kind: "push", file: "a", blob: "2" }],
    ],
    ["changed alike on both sides: nothing", { a: "1" }, { a: "2" }, { a: "2" }, []],
    [
      "changed differently on both sides: a conflict",
      { a: "1" },
      { a: "2" },
      { a: "3" },
      [{ kind: "conflict", file: "a", blob: "3" }],
    ],
    [
      "added differently on both sides (no base): a conflict",
      {},
      { a: "2" },
      { a: "3" },
      [{ kind: "conflict", file: "a", blob: "3" }],
    ],
  ];
  for (const [name, base, ours, theirs, expected] of cases)
    it(name, () => assert.deepEqual(planSync(map(base), map(ours), map(theirs), new Set()), expected));

  it("leaves held files (private, holding a secret, refused from the remote) alone on both sides", () => {
    assert.deepEqual(planSync(map({ a: "1" }), map({}), map({ a: "2" }), new Set(["a"])), []);
  });
});

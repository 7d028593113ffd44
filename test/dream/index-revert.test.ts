import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { revertIndexLines } from "../../src/dream/index-revert.ts";

const A = "- [A](a.md) — a";
const B = "- [B](b.md) — b";
const B2 = "- [B](b.md) — b, revised";
const C = "- [C](c.md) — c";
const D = "- [D](d.md) — d";
const text = (...lines: string[]) => lines.map((line) => `${line}\n`).join("");

describe("revertIndexLines", () => {
  it("puts a removed line back after the line it followed, keeping lines added since", () => {
    assert.deepEqual(revertIndexLines(text(A, B, C), text(A, C), text(A, C, D)), { text: text(A, B, C, D) });
  });

  it("puts a removed first line back at the top", () => {
    assert.deepEqual(revertIndexLines(text(A, B), text(B), text(D, B)), { text: text(A, D, B) });
  });

  it("puts a rewritten line back in place of its rewrite, wherever that moved", () => {
    assert.deepEqual(revertIndexLines(text(A, B, C), text(A, B2, C), text(D, B2, A)), {
      text: text(D, B, A),
    });
  });

  it("removes a line the change added, and gives `before` byte for byte when nothing changed since", () => {
    assert.deepEqual(revertIndexLines(text(A), text(A, B), text(A, B, C)), { text: text(A, C) });
    assert.deepEqual(revertIndexLines("# Memory\n\n", "# Memory\n\n- x\n", "# Memory\n\n- x\n"), {
      text: "# Memory\n\n",
    });
  });

  it("names the line when a later change rewrote or removed a line the change added", () => {
    assert.deepEqual(revertIndexLines(text(A, B), text(A, B2), text(A, C)), { conflict: { line: B2 } });
  });
});

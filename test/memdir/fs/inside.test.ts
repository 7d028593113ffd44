import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isInside, relativeInside } from "../../../src/memdir/fs/inside.ts";

describe("isInside (the one containment check)", () => {
  it("counts a child named ..foo as inside, and only .. or ../ as leaving", () => {
    assert.equal(relativeInside("/m", "/m/..foo"), "..foo");
    assert.equal(isInside("/m", "/m/..foo/a.md"), true);
    assert.equal(isInside("/m", "/m/a/../../x"), false);
    assert.equal(isInside("/m", "/x/a.md"), false);
    assert.equal(isInside("/m", "/mx/a.md"), false, "a sibling with the same prefix is outside");
  });

  it("counts the parent itself only when asked", () => {
    assert.equal(isInside("/m", "/m"), false);
    assert.equal(isInside("/m", "/m", { orSame: true }), true);
    assert.equal(relativeInside("/m", "/m/", { orSame: true }), "");
  });
});

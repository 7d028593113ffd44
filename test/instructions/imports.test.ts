import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { findImports, importCandidates } from "../../src/instructions/imports.ts";

describe("findImports", () => {
  it("finds @path tokens at line start and after whitespace, in order, once each", () => {
    assert.deepEqual(findImports("@a.md\nsee @./b.md and @../c.md, @~/d.md, @/abs/e.md\n@a.md"), [
      "a.md",
      "./b.md",
      "../c.md,",
      "~/d.md,",
      "/abs/e.md",
    ]);
  });

  it("skips e-mail addresses, bare @ and inline code spans", () => {
    assert.deepEqual(findImports("mail me@example.com, @ alone, `@code.md` and ``@double `x` .md``"), []);
  });

  it("skips fenced code blocks, including an unclosed one", () => {
    assert.deepEqual(findImports("```\n@in-fence.md\n```\n@after.md\n~~~\n@unclosed.md"), ["after.md"]);
  });

  it("keeps escaped spaces and drops #fragments", () => {
    assert.deepEqual(findImports("@my\\ notes.md#section"), ["my notes.md"]);
  });
});

describe("importCandidates", () => {
  it("resolves relative to the importing file and ~ against home, trying without trailing punctuation", () => {
    assert.deepEqual(importCandidates("docs/a.md", "/repo/sub/CLAUDE.md", "/home/me"), [
      path.resolve("/repo/sub/docs/a.md"),
    ]);
    assert.deepEqual(importCandidates("~/x.md.", "/repo/CLAUDE.md", "/home/me"), [
      path.join("/home/me", "x.md."),
      path.join("/home/me", "x.md"),
    ]);
  });
});

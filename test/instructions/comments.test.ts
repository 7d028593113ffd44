import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { stripHtmlComments } from "../../src/instructions/comments.ts";

describe("stripHtmlComments", () => {
  it("removes a comment on its own line", () => {
    assert.equal(stripHtmlComments("<!-- for humans -->\nUse pnpm."), "Use pnpm.");
  });

  it("removes a comment spanning several lines and keeps text after its end", () => {
    assert.equal(stripHtmlComments("before\n<!-- one\ntwo\nthree --> after\nlast"), "before\nafter\nlast");
  });

  it("keeps comments inside fenced code blocks", () => {
    const text = "```html\n<!-- example -->\n```\n~~~\n<!-- also -->\n~~~";
    assert.equal(stripHtmlComments(text), text);
  });

  it("keeps a comment in the middle of a paragraph line", () => {
    assert.equal(stripHtmlComments("Run tests <!-- always --> first."), "Run tests <!-- always --> first.");
  });

  it("keeps an unclosed comment rather than losing the rest of the file", () => {
    assert.equal(stripHtmlComments("<!-- never closed\nreal rule"), "<!-- never closed\nreal rule");
  });

  it("treats a comment indented four spaces as code, not a comment", () => {
    assert.equal(stripHtmlComments("    <!-- code -->"), "    <!-- code -->");
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fitHookContext, MAX_HOOK_CONTEXT_CHARS } from "../../src/hooks/context-limit.ts";

// What a prompt hook's context keeps when recalled memories do not all fit
// (docs/design.md#hook-context-limit): every memory is named, shown whole, cut or left out.

/** A memory file's path as long as a real one under a deep home folder. */
function longPath(n: number): string {
  const home = `/home/${"a-rather-long-user-name".repeat(2)}/.claude/projects/-home-user-work-clients-acme-payments-service/memory`;
  return `${home}/project-deploy-checklist-part-${n}.md`;
}

describe("the hook context's limit", () => {
  it("names every left-out memory's file when their paths are long, cutting the last shown one shorter", () => {
    const parts = [1, 2, 3, 4, 5].map((n) => ({
      text: `Memory (saved today): ${longPath(n)}:\n\n${"x".repeat(3900)}`,
      path: longPath(n),
    }));
    const text = fitHookContext(parts) ?? "";
    assert.ok(text.length <= MAX_HOOK_CONTEXT_CHARS, `${text.length} characters`);
    for (const n of [1, 2, 3, 4, 5]) assert.ok(text.includes(longPath(n)), `memory ${n} is named`);
    assert.match(text, /read the rest at .*part-3\.md\]/);
    assert.match(
      text,
      /\[2 more left out to keep this context within 10,000 characters: .*part-4\.md, .*part-5\.md\]/,
    );
  });

  it("still cuts a memory when naming the rest would leave too little of it, and counts the rest", () => {
    const many = Array.from({ length: 60 }, (_, i) => ({
      text: `Memory (saved today): ${longPath(i)}:\n\n${"y".repeat(1500)}`,
      path: longPath(i),
    }));
    const text = fitHookContext(many) ?? "";
    assert.ok(text.length <= MAX_HOOK_CONTEXT_CHARS, `${text.length} characters`);
    assert.match(text, /read the rest at /);
    assert.match(text, /more left out to keep this context within 10,000 characters/);
  });

  it("keeps everything that fits, with no note", () => {
    const text = fitHookContext([
      { text: "short", path: "/m/a.md" },
      { text: "also short", path: "/m/b.md" },
    ]);
    assert.equal(text, "short\n\nalso short");
  });
});

import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { QUERY_MAX_CHARS } from "../../src/recall/lexical/text/query-text.ts";
import {
  agentMentions,
  collectSettledMemories,
  prefetchGate,
  startRelevantMemoryPrefetch,
} from "../../src/recall/prefetch.ts";
import { surfacedMemoryMessage } from "../../src/recall/surface.ts";
import type { Message, ReadFileState } from "../../src/types.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";
import { deferredSelector, keywordSelector, type SelectorCall } from "./fake-selectors.ts";

const NOW = Date.parse("2026-08-10T12:00:00Z");
const clock = () => NOW;

let nextId = 0;
function user(content: string, isMeta = false): Message {
  return { id: `m${nextId++}`, role: "user", content, ...(isMeta ? { isMeta } : {}) };
}
function assistant(content: string): Message {
  return { id: `m${nextId++}`, role: "assistant", content };
}

/** A project layout: `<projectDir>/memory` with two memories about login tests. */
function project(): { location: { memoryDir: string; projectDir: string }; memoryDir: string } {
  const projectDir = makeTempDir();
  const memoryDir = path.join(projectDir, "memory");
  writeTree(memoryDir, {
    "MEMORY.md": "- [Real DB](feedback-login-db.md) — login tests hit a real database\n",
    "feedback-login-db.md":
      "---\ndescription: login tests must use a real database\ntype: feedback\n---\nNo mocks.\n",
    "feedback-login-style.md":
      "---\ndescription: login test naming style\ntype: feedback\n---\nName tests after behaviour.\n",
  });
  return { location: { memoryDir, projectDir }, memoryDir };
}

describe("prefetch gates", () => {
  it("skips when auto memory is off", () => {
    assert.deepEqual(prefetchGate([user("fix the login tests")], { autoMemory: false }), {
      skip: "auto memory is off",
    });
  });

  it("skips when there is no real user message (only hidden or tool-result ones)", () => {
    const toolResult: Message = {
      id: "t",
      role: "user",
      content: [{ type: "tool_result", toolUseId: "x", content: "ok" }],
    };
    assert.deepEqual(prefetchGate([user("context block with many words", true), toolResult]), {
      skip: "no real user message",
    });
  });

  it("skips a single word but not a Chinese sentence without spaces", () => {
    assert.deepEqual(prefetchGate([user("hello")]), { skip: "single-word input" });
    const gate = prefetchGate([user("修复登录测试")]);
    assert.equal(gate.skip, null);
    assert.equal(gate.skip === null && gate.input, "修复登录测试");
  });

  it("searches a pasted page by its opening only, cut to a whole word", () => {
    const paste = `fix the login tests ${"timeout waiting for db ".repeat(20_000)}`;
    const gate = prefetchGate([user(paste)]);
    assert.equal(gate.skip, null);
    const input = gate.skip === null ? gate.input : "";
    assert.ok(input.length <= QUERY_MAX_CHARS, `cut to ${QUERY_MAX_CHARS}, got ${input.length}`);
    assert.ok(input.startsWith("fix the login tests timeout"));
    assert.ok(paste.startsWith(input) && /\s/.test(paste[input.length]), "ends at the end of a word");
  });

  it("searches with the last real user message only, not the conversation", () => {
    const gate = prefetchGate([
      user("first question about billing"),
      assistant("answer"),
      user("now fix the login tests"),
      user("<system-reminder>hidden context</system-reminder>", true),
    ]);
    assert.equal(gate.skip === null && gate.input, "now fix the login tests");
  });

  it("skips once surfaced memory in the messages reaches 60 KB, and starts over after compaction", () => {
    const big = "z".repeat(16 * 1024);
    const surfaced = [1, 2, 3, 4].map((i) =>
      surfacedMemoryMessage({ path: `/m/${i}.md`, mtimeMs: NOW, content: big, now: NOW }),
    );
    const full = prefetchGate([user("fix login tests"), ...surfaced, user("and the signup tests too")]);
    assert.match(full.skip ?? "", /session memory budget reached/);
    const compacted = prefetchGate([user("summary of earlier work"), user("and the signup tests too")]);
    assert.equal(compacted.skip, null);
  });

  it("finds @agent-NAME mentions", () => {
    assert.deepEqual(agentMentions("ask @agent-code-reviewer and @agent-qa, not email@agent-x"), [
      "code-reviewer",
      "qa",
    ]);
  });
});

describe("startRelevantMemoryPrefetch", () => {
  it("returns a settled, empty handle when a gate skips", async () => {
    const { location } = project();
    const calls: SelectorCall[] = [];
    using handle = startRelevantMemoryPrefetch([user("hello")], {
      location,
      selector: keywordSelector(calls),
    });
    assert.notEqual(handle.settledAt, null);
    const result = await handle.promise;
    assert.equal(result.skipReason, "single-word input");
    assert.equal(calls.length, 0, "the selector is never called");
  });

  it("searches a CJK prompt with no spaces", async () => {
    const { location } = project();
    const calls: SelectorCall[] = [];
    using handle = startRelevantMemoryPrefetch([user("修复登录测试")], {
      location,
      selector: keywordSelector(calls),
    });
    const result = await handle.promise;
    assert.equal(result.skipReason, null);
    assert.equal(calls[0].query, "修复登录测试");
  });

  it("never blocks: consumption returns nothing until settled, then the memories once", async () => {
    const { location, memoryDir } = project();
    const gated = deferredSelector(keywordSelector());
    const readFileState: ReadFileState = new Map();
    using handle = startRelevantMemoryPrefetch([user("fix the login database tests")], {
      location,
      selector: gated.selector,
      readFileState,
      now: clock,
    });
    await gated.started;
    assert.deepEqual(
      collectSettledMemories(handle, readFileState, 1),
      [],
      "iteration 1: not settled, nothing",
    );
    assert.equal(handle.settledAt, null);
    assert.equal(handle.consumedOnIteration, null);

    gated.release();
    await handle.promise;
    assert.notEqual(handle.settledAt, null);
    const messages = collectSettledMemories(handle, readFileState, 2, clock);
    assert.equal(handle.consumedOnIteration, 2);
    assert.ok(messages.length >= 1);
    assert.ok((messages[0].content as string).includes(path.join(memoryDir, "feedback-login-db.md")));
    assert.equal(messages[0].isMeta, true);
    assert.deepEqual(readFileState.get(path.join(memoryDir, "feedback-login-db.md")), {
      readAt: NOW,
      source: "memory",
    });
    assert.deepEqual(collectSettledMemories(handle, readFileState, 3), [], "consumed once only");
  });

  it("drops at consumption a memory the model read meanwhile", async () => {
    const { location, memoryDir } = project();
    const gated = deferredSelector(keywordSelector());
    const readFileState: ReadFileState = new Map();
    using handle = startRelevantMemoryPrefetch([user("login database tests")], {
      location,
      selector: gated.selector,
      readFileState,
    });
    await gated.started;
    // The model reads the memory file itself with its Read tool while the search runs.
    readFileState.set(path.join(memoryDir, "feedback-login-db.md"), { readAt: NOW, source: "read" });
    gated.release();
    const result = await handle.promise;
    assert.ok(
      result.memories.some((m) => m.file === "feedback-login-db.md"),
      "selected before the read happened",
    );
    const messages = collectSettledMemories(handle, readFileState, 1);
    assert.ok(messages.every((m) => !(m.content as string).includes("feedback-login-db.md")));
    assert.equal(readFileState.get(path.join(memoryDir, "feedback-login-db.md"))?.source, "read");
  });

  it("leaves files already read out of the selection", async () => {
    const { location, memoryDir } = project();
    const calls: SelectorCall[] = [];
    const readFileState: ReadFileState = new Map([
      [path.join(memoryDir, "feedback-login-db.md"), { readAt: NOW, source: "read" }],
    ]);
    using handle = startRelevantMemoryPrefetch([user("login tests")], {
      location,
      selector: keywordSelector(calls),
      readFileState,
    });
    await handle.promise;
    assert.deepEqual(calls[0].files, ["feedback-login-style.md"]);
  });

  it("dispose aborts a hanging selector and leaves no listener behind", async () => {
    const { location } = project();
    const parent = new AbortController();
    const hanging = deferredSelector();
    const handle = startRelevantMemoryPrefetch([user("fix the login tests")], {
      location,
      selector: hanging.selector,
      signal: parent.signal,
    });
    await hanging.started;
    assert.equal(getEventListeners(parent.signal, "abort").length, 1);
    handle[Symbol.dispose]();
    const result = await handle.promise;
    assert.equal(hanging.aborted, true, "the selector's signal fired");
    assert.equal(result.skipReason, "aborted");
    assert.deepEqual(result.memories, []);
    assert.equal(
      getEventListeners(parent.signal, "abort").length,
      0,
      "no listener left on the loop's signal",
    );
    assert.equal(parent.signal.aborted, false, "disposing the child does not abort the loop");
  });

  it("settles on dispose even when a selector ignores its signal", async () => {
    const { location } = project();
    const deaf = deferredSelector(undefined, { ignoreAbort: true });
    const handle = startRelevantMemoryPrefetch([user("fix the login tests")], {
      location,
      selector: deaf.selector,
    });
    await deaf.started;
    handle[Symbol.dispose]();
    assert.equal((await handle.promise).skipReason, "aborted");
  });

  it("aborting the loop's signal aborts the prefetch", async () => {
    const { location } = project();
    const parent = new AbortController();
    const hanging = deferredSelector();
    using handle = startRelevantMemoryPrefetch([user("fix the login tests")], {
      location,
      selector: hanging.selector,
      signal: parent.signal,
    });
    await hanging.started;
    parent.abort();
    assert.equal((await handle.promise).skipReason, "aborted");
    assert.equal(hanging.aborted, true);
  });

  it("never rejects: a failing selector resolves to empty with the reason, and is reported", async () => {
    const { location } = project();
    const errors: unknown[] = [];
    using handle = startRelevantMemoryPrefetch([user("fix the login tests")], {
      location,
      selector: {
        name: "broken",
        select: async () => {
          throw new Error("index corrupted");
        },
      },
      onError: (error) => errors.push(error),
    });
    const result = await handle.promise;
    assert.equal(result.skipReason, "recall failed: index corrupted");
    assert.equal(errors.length, 1);
  });

  it("routes @agent-NAME to that agent's own memory dir", async () => {
    const { location } = project();
    const agentDir = path.join(location.projectDir, "agents", "reviewer", "memory");
    writeTree(agentDir, {
      "feedback-review-login.md":
        "---\ndescription: review login changes for token leaks\ntype: feedback\n---\nCheck tokens.\n",
    });
    const calls: SelectorCall[] = [];
    using handle = startRelevantMemoryPrefetch([user("@agent-reviewer look at the login changes")], {
      location,
      selector: keywordSelector(calls),
    });
    const result = await handle.promise;
    assert.deepEqual(calls[0].files, ["feedback-review-login.md"]);
    assert.equal(calls[0].request.memoryDir, agentDir);
    assert.deepEqual(
      result.memories.map((m) => m.file),
      ["feedback-review-login.md"],
    );
    // An agent without a memory dir has nothing of its own: the project's memory is searched.
    const fallbackCalls: SelectorCall[] = [];
    using other = startRelevantMemoryPrefetch([user("@agent-nobody fix the login tests")], {
      location,
      selector: keywordSelector(fallbackCalls),
    });
    await other.promise;
    assert.equal(fallbackCalls[0].request.memoryDir, location.memoryDir);
    assert.ok(fs.existsSync(location.memoryDir));
  });
});

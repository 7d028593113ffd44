// Anthropic's memory tool on a memdir memory directory, driven the way a user drives it: the
// SDK's own `betaMemoryTool` and tool runner, over real HTTP to the fake model server, which
// scripts the model's side of a memory-tool conversation.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { betaMemoryTool, type MemoryToolHandlers } from "@anthropic-ai/sdk/helpers/beta/memory";
import { parseFrontmatter } from "../../src/memdir/format/frontmatter.ts";
import { parseIndex } from "../../src/memdir/format/index-file.ts";
import { memoryToolHandlers } from "../../src/memory-tool/handlers.ts";
import { type FakeRequest, type FakeStep, startFakeModelServer } from "../../src/testing/index.ts";
import { memory, writeMemory } from "../helpers/memory.ts";
import { makeTempDir } from "../helpers/temp.ts";

/** The tool results the runner sent back in a request, in order. */
function toolResults(request: FakeRequest): { content: string; isError: boolean }[] {
  const messages = (request.body?.messages ?? []) as { role: string; content: unknown }[];
  const last = messages.at(-1);
  if (!last || !Array.isArray(last.content)) return [];
  return (last.content as { type: string; content?: unknown; is_error?: boolean }[])
    .filter((block) => block.type === "tool_result")
    .map((block) => ({
      content:
        typeof block.content === "string"
          ? block.content
          : ((block.content as { text?: string }[] | undefined) ?? [])
              .map((part) => part.text ?? "")
              .join(""),
      isError: block.is_error === true,
    }));
}

/** Runs the SDK's tool runner with memdir's memory tool against a scripted model; returns the requests. */
async function converse(memoryDir: string, script: FakeStep[]): Promise<FakeRequest[]> {
  await using server = await startFakeModelServer(script);
  const client = new Anthropic({ apiKey: "test-key", baseURL: server.anthropicBaseURL, maxRetries: 0 });
  const handlers: MemoryToolHandlers = memoryToolHandlers(memoryDir);
  const final = await client.beta.messages.toolRunner({
    model: "claude-test",
    max_tokens: 1024,
    tools: [betaMemoryTool(handlers)],
    messages: [{ role: "user", content: "Remember: integration tests must hit a real database." }],
  });
  assert.equal(server.remaining, 0, "the whole script was used");
  assert.ok(final.content.some((block) => block.type === "text"));
  return [...server.requests];
}

const memoryCall = (input: Record<string, unknown>) => ({ toolCall: { name: "memory", input } });

describe("memoryToolHandlers with the SDK's betaMemoryTool and tool runner", () => {
  it("shows the memories with their descriptions, and turns a file without frontmatter into a memory", async () => {
    const memoryDir = makeTempDir();
    writeMemory(
      memoryDir,
      "user-role.md",
      memory("the user is a data engineer", "They run Airflow.", "user"),
    );
    fs.writeFileSync(
      path.join(memoryDir, "MEMORY.md"),
      "- [Role](user-role.md) — the user is a data engineer\n",
    );
    const requests = await converse(memoryDir, [
      memoryCall({ command: "view", path: "/memories" }),
      memoryCall({
        command: "create",
        path: "/memories/feedback-real-database.md",
        file_text:
          "Integration tests must hit a real database.\nWhy: a mocked test hid a broken migration.\n",
      }),
      memoryCall({
        command: "str_replace",
        path: "/memories/feedback-real-database.md",
        old_str: "broken migration",
        new_str: "broken migration in March",
      }),
      memoryCall({ command: "view", path: "/memories/feedback-real-database.md" }),
      "Saved: integration tests hit a real database.",
    ]);

    const [view] = toolResults(requests[1]);
    assert.equal(view.isError, false);
    assert.match(view.content, /\/memories\/user-role\.md \[user, today\]: the user is a data engineer/);

    const [created] = toolResults(requests[2]);
    assert.equal(created.isError, false, created.content);
    assert.match(created.content, /File created successfully at: \/memories\/feedback-real-database\.md/);
    assert.match(created.content, /type: feedback \(from the file name\)/);
    assert.match(created.content, /description: "Integration tests must hit a real database\."/);

    const text = fs.readFileSync(path.join(memoryDir, "feedback-real-database.md"), "utf8");
    const parsed = parseFrontmatter(text);
    assert.deepEqual(parsed.issues, []);
    assert.equal(parsed.type, "feedback");
    assert.equal(parsed.description, "Integration tests must hit a real database.");
    assert.match(parsed.body, /broken migration in March/);

    const index = parseIndex(fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8"));
    assert.deepEqual(
      index.map((entry) => entry.file),
      ["user-role.md", "feedback-real-database.md"],
    );
    const [shown] = toolResults(requests[4]);
    assert.match(shown.content, /^\s+1\t---$/m);
    assert.match(shown.content, /type: feedback/);
  });

  it("refuses secrets, escapes, memdir's own state and the index, and writes nothing", async () => {
    const memoryDir = makeTempDir();
    fs.mkdirSync(path.join(memoryDir, ".git"));
    const requests = await converse(memoryDir, [
      {
        toolCalls: [
          {
            name: "memory",
            input: {
              command: "create",
              path: "/memories/reference-key.md",
              file_text:
                "The deploy key is AKIAIOSFODNN7EXAMPLF and the token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB",
            },
          },
          { name: "memory", input: { command: "create", path: "/memories/../escape.md", file_text: "x" } },
          { name: "memory", input: { command: "create", path: "/memories/.git/config", file_text: "x" } },
          { name: "memory", input: { command: "create", path: "/memories/run.sh", file_text: "x" } },
          { name: "memory", input: { command: "create", path: "/memories/MEMORY.md", file_text: "x" } },
          { name: "memory", input: { command: "create", path: "/etc/passwd.md", file_text: "x" } },
          { name: "memory", input: { command: "delete", path: "/memories" } },
        ],
      },
      "I could not save that.",
    ]);
    const results = toolResults(requests[1]);
    assert.equal(results.length, 7);
    for (const result of results) assert.equal(result.isError, true, result.content);
    assert.match(results[0].content, /secret|credential|key/i);
    assert.doesNotMatch(
      results[1].content,
      new RegExp(memoryDir),
      "the model sees /memories, not the disk path",
    );
    assert.match(results[2].content, /memdir's own state/);
    assert.match(results[3].content, /not a memory file/);
    assert.match(results[4].content, /index memdir keeps in step/);
    assert.match(results[5].content, /start with \/memories/);
    assert.deepEqual(fs.readdirSync(memoryDir).sort(), [".git"]);
    assert.equal(fs.existsSync(path.join(path.dirname(memoryDir), "escape.md")), false);
  });

  it("acts on a memory whichever Unicode form its path comes in (NFC on disk, NFD from the model)", async () => {
    const memoryDir = makeTempDir();
    const handlers = memoryToolHandlers(memoryDir);
    const nfc = "/memories/café.md";
    const nfd = nfc.normalize("NFD");
    assert.notEqual(nfc, nfd);
    await handlers.create({
      command: "create",
      path: nfc,
      file_text: "---\ndescription: cafe order\ntype: user\n---\nOrders a flat white.\n",
    });
    await handlers.str_replace({
      command: "str_replace",
      path: nfd,
      old_str: "flat white",
      new_str: "cortado",
    });
    assert.match(fs.readFileSync(path.join(memoryDir, "café.md"), "utf8"), /Orders a cortado/);
    await handlers.rename({ command: "rename", old_path: nfd, new_path: "/memories/user-cafe-order.md" });
    assert.deepEqual(
      fs.readdirSync(memoryDir).filter((file) => file.endsWith(".md") && file !== "MEMORY.md"),
      ["user-cafe-order.md"],
    );
  });

  it("renames and deletes memories together with their index lines", async () => {
    const memoryDir = makeTempDir();
    const requests = await converse(memoryDir, [
      memoryCall({
        command: "create",
        path: "/memories/notes.md",
        file_text:
          "---\ndescription: the staging database is refreshed on Mondays\ntype: project\n---\nRefreshed Mondays.\n",
      }),
      memoryCall({
        command: "insert",
        path: "/memories/notes.md",
        // After the body: the saved file starts with the frontmatter memdir writes (name,
        // description, type, modified), as a `view` would have shown the model.
        insert_line: 7,
        insert_text: "Ask #data first.",
      }),
      memoryCall({
        command: "rename",
        old_path: "/memories/notes.md",
        new_path: "/memories/team/project-staging.md",
      }),
      memoryCall({ command: "view", path: "/memories/team" }),
      memoryCall({ command: "delete", path: "/memories/team" }),
      "Done.",
    ]);
    const [created] = toolResults(requests[1]);
    assert.doesNotMatch(
      created.content,
      /no complete frontmatter/,
      "a complete memory needs nothing inferred",
    );
    const [renamed] = toolResults(requests[3]);
    assert.equal(renamed.isError, false, renamed.content);
    const [listed] = toolResults(requests[4]);
    assert.match(
      listed.content,
      /\/memories\/team\/project-staging\.md \[project, today\]: the staging database/,
    );
    const [deleted] = toolResults(requests[5]);
    assert.equal(deleted.isError, false, deleted.content);
    assert.equal(fs.existsSync(path.join(memoryDir, "team")), false);
    assert.equal(fs.existsSync(path.join(memoryDir, "notes.md")), false);
    assert.equal(parseIndex(fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8")).length, 0);
  });
});

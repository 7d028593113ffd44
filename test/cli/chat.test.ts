import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { startFakeModelServer } from "../../src/testing/index.ts";
import { runCli } from "../helpers/cli.ts";
import { agentFixture, fakeModelEnv } from "./agent-fixture.ts";

describe("memdir chat", () => {
  it("answers each line, shows saved memories, and quits on /exit", async (t) => {
    const { home, project, memoryDir } = agentFixture();
    const memoryFile = path.join(memoryDir, "project-deploy-fridays.md");
    const server = await startFakeModelServer(async (request) => {
      if (request.jsonSchema) return { json: { selected_memories: [] } };
      const sent = JSON.stringify(request.body);
      if (request.userText.endsWith("hello there")) return "Hi! How can I help?";
      if (request.userText.endsWith("deploys happen on Fridays")) {
        return {
          toolCall: {
            name: "Write",
            input: {
              file_path: memoryFile,
              content:
                "---\ndescription: deploys happen on Fridays\ntype: project\n---\nDeploy on Fridays.\n",
            },
          },
        };
      }
      if (sent.includes("memdir already saved")) return "Noted, already saved.";
      return "Saved.";
    });
    t.after(() => server.close());
    const result = await runCli(["chat"], {
      home,
      cwd: project,
      env: fakeModelEnv(server.anthropicBaseURL),
      input:
        "hello there\nremember that I use pnpm\nkeep a note that deploys happen on Fridays\n/exit\nnever sent\n",
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Hi! How can I help\?/);
    // The explicit rule saved the first at once, and the model was told so.
    assert.match(result.stdout, /✎ saved: user-[a-z-]*pnpm[a-z-]*\.md/);
    assert.match(result.stdout, /Noted, already saved\./);
    // The model saved the second with its Write tool.
    assert.match(result.stdout, /✎ saved: project-deploy-fridays\.md/);
    assert.ok(fs.existsSync(memoryFile));
    assert.equal(result.stdout.includes("never sent"), false);
  });

  it("ends cleanly at the end of input (Ctrl-D)", async (t) => {
    const { home, project } = agentFixture();
    const server = await startFakeModelServer(async () => "ok");
    t.after(() => server.close());
    const result = await runCli(["chat"], {
      home,
      cwd: project,
      env: fakeModelEnv(server.anthropicBaseURL),
      input: "",
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(server.requests.length, 0);
  });
});

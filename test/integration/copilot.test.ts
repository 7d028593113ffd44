import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { loadTranscript } from "../../src/agent/transcript.ts";
import {
  type FakeModelServer,
  type FakeRequest,
  type FakeStep,
  startFakeModelServer,
} from "../../src/testing/index.ts";
import { occurrences, processesOfHome } from "../helpers/claude-code.ts";
import { runCli } from "../helpers/cli.ts";
import { writeMemory } from "../helpers/memory.ts";
import {
  type AgentProject,
  type AgentRun,
  ANSWER,
  agentProject,
  COPILOT_VERSION,
  chatText,
  copilotCacheHome,
  INDEX_LINE,
  installCopilot,
  newMemories,
  PROMPT,
  runAgent,
  SAVE_INPUT,
  SECRET_WORD,
  toolNames,
  toolResults,
} from "../helpers/openai-agents.ts";
import { waitFor } from "../helpers/wait.ts";

// The real GitHub Copilot CLI, installed from the npm registry and run in prompt mode (`-p`)
// against the fake model server as an OpenAI provider (`COPILOT_PROVIDER_*`, `COPILOT_OFFLINE`: no
// GitHub sign-in), wired by the real `memdir setup copilot`: its hooks file and its MCP server.

const install = installCopilot();
const skip = "skip" in install ? install.skip : false;
const copilotBin = "bin" in install ? install.bin : "";

/** Copilot's own system prompt opens with this: its requests, not memdir's. */
const COPILOT_SYSTEM = "You are the GitHub Copilot CLI";
const SAVE_TOOL = "memdir-memory_save";

function fromCopilot(request: FakeRequest): boolean {
  return request.system.includes(COPILOT_SYSTEM);
}

/**
 * The model: Copilot's requests get `copilotStep`; memdir's own (there are none unless memdir is
 * configured for a model) a selection of every memory offered, or nothing to save.
 */
function modelServer(copilotStep: (request: FakeRequest) => FakeStep): Promise<FakeModelServer> {
  const server = startFakeModelServer((request) => {
    if (fromCopilot(request)) return copilotStep(request);
    if (JSON.stringify(request.jsonSchema ?? {}).includes("selected_memories")) {
      const offered = [...request.userText.matchAll(/([\w.-]+\.md)\b/g)].map((match) => match[1]);
      return { json: { selected_memories: [...new Set(offered)].filter((file) => file !== "MEMORY.md") } };
    }
    return "Nothing worth saving.";
  });
  // Registered now, not once started: an `after` added from a `before` hook runs as that hook ends.
  after(async () => (await server).close());
  return server;
}

/** A project whose background processes (memdir's, Copilot's) are killed by pid when the suite ends. */
function copilotProject(): AgentProject {
  const fixture = agentProject("memdir-copilot-");
  after(() => {
    for (const pid of processesOfHome(fixture.home)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
  });
  return fixture;
}

/** `memdir setup copilot` as a user runs it: `~/.copilot/hooks/memdir.json` and `mcp-config.json`. */
async function setupMemdir({ home, project }: AgentProject): Promise<void> {
  // `--command memdir`: the documented command, which the wrapper on the agent's PATH answers.
  const setup = await runCli(["setup", "copilot", "--json", "--command", "memdir"], { home, cwd: project });
  assert.equal(setup.code, 0, `memdir setup: ${setup.stderr}`);
  const files = (JSON.parse(setup.stdout) as { files: { path: string }[] }).files.map((file) => file.path);
  assert.deepEqual(files, [
    path.join(home, ".copilot", "hooks", "memdir.json"),
    path.join(home, ".copilot", "mcp-config.json"),
  ]);
}

function promptCopilot(fixture: AgentProject, server: FakeModelServer, prompt = PROMPT): Promise<AgentRun> {
  return runAgent(copilotBin, ["--allow-all-tools", "-p", prompt], {
    cwd: fixture.project,
    env: {
      PATH: [fixture.binDir, process.env.PATH ?? ""].join(path.delimiter),
      HOME: fixture.home,
      NO_COLOR: "1",
      // No memory helper: it would outlive the run.
      MEMDIR_HELPER: "0",
      // Copilot hands its environment to the hooks; memdir's own bound, generous on a loaded box.
      MEMDIR_HOOK_TIMEOUT_MS: "60000",
      XDG_CACHE_HOME: copilotCacheHome(),
      COPILOT_OFFLINE: "true",
      COPILOT_PROVIDER_BASE_URL: server.openaiBaseURL,
      COPILOT_PROVIDER_TYPE: "openai",
      COPILOT_PROVIDER_API_KEY: "dummy",
      COPILOT_MODEL: "gpt-4.1",
    },
  });
}

/** The one session Copilot logged in the fixture's HOME: its `events.jsonl`. */
function sessionLog(fixture: AgentProject): string {
  const root = path.join(fixture.home, ".copilot", "session-state");
  const sessions = fs.readdirSync(root).filter((name) => !name.startsWith(".")); // .session-operation-locks
  assert.equal(sessions.length, 1, `one session in ${root}`);
  return path.join(root, sessions[0], "events.jsonl");
}

interface CopilotEvent {
  type: string;
  data: Record<string, unknown>;
}

function sessionEvents(fixture: AgentProject): CopilotEvent[] {
  return fs
    .readFileSync(sessionLog(fixture), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as CopilotEvent);
}

async function backgroundDone(home: string): Promise<void> {
  await waitFor(() => processesOfHome(home).length === 0, { what: "the run's background processes" });
}

function assertRan(run: AgentRun): void {
  assert.equal(run.code, 0, `copilot exited ${run.code}: ${run.stderr}${run.stdout}`);
}

const TITLE = `GitHub Copilot CLI ${COPILOT_VERSION} with memdir (the real CLI, offline)`;

if (skip) it(TITLE, { skip }, () => {});
else
  describe(TITLE, () => {
    describe("one prompt after `memdir setup copilot`", () => {
      const fixture = copilotProject();
      const started = modelServer(() => ANSWER);
      let server: FakeModelServer;
      let run: AgentRun;
      before(async () => {
        await setupMemdir(fixture);
        server = await started;
        run = await promptCopilot(fixture, server);
      });

      it("answers, with the index and the recalled memory in the model's request exactly once", () => {
        assertRan(run);
        assert.ok(run.stdout.includes(ANSWER), run.stdout);
        const main = server.requests.filter(fromCopilot);
        assert.equal(main.length, 1, "one model request");
        const text = chatText(main[0]);
        assert.equal(occurrences(text, INDEX_LINE), 1, "the index line, once");
        assert.equal(occurrences(text, SECRET_WORD), 1, "the recalled memory's body, once");
        assert.ok(text.includes(path.join(fixture.memoryDir, "project-staging-freeze.md")));
      });

      it("runs setup's PascalCase events as its own (sessionStart, userPromptSubmitted, agentStop) and reads the top-level additionalContext", () => {
        const events = sessionEvents(fixture);
        const started = events
          .filter((event) => event.type === "hook.start")
          .map((event) => event.data.hookType);
        assert.deepEqual(started.sort(), ["agentStop", "sessionStart", "userPromptSubmitted"]);
        const ended = new Map(
          events
            .filter((event) => event.type === "hook.end")
            .map((event) => [event.data.hookType, event.data.output as Record<string, unknown>]),
        );
        assert.match(String(ended.get("sessionStart")?.additionalContext), /MEMORY\.md/);
        assert.match(String(ended.get("userPromptSubmitted")?.additionalContext), new RegExp(SECRET_WORD));
        const stop = events.find(
          (event) => event.type === "hook.start" && event.data.hookType === "agentStop",
        );
        const input = stop?.data.input as Record<string, unknown>;
        assert.equal(input.transcriptPath, sessionLog(fixture), "the Stop hook is told the session log");
      });

      it("makes no model request of memdir's own", async () => {
        await backgroundDone(fixture.home);
        const own = server.requests.filter((request) => !fromCopilot(request));
        assert.deepEqual(
          own.map((request) => request.path),
          [],
        );
      });

      it("leaves a session log memdir reads as the conversation (the prompt, the answer)", () => {
        const file = sessionLog(fixture);
        const transcript = loadTranscript(file);
        assert.equal(transcript.sessionId, path.basename(path.dirname(file)));
        assert.deepEqual(
          transcript.messages.map((message) => [message.role, message.content]),
          [
            ["user", PROMPT],
            ["assistant", ANSWER],
          ],
        );
      });
    });

    it("drops Claude Code's answer shape (hookSpecificOutput): without --host copilot nothing reaches the model", async () => {
      const fixture = copilotProject();
      await setupMemdir(fixture);
      const hooks = path.join(fixture.home, ".copilot", "hooks", "memdir.json");
      fs.writeFileSync(hooks, fs.readFileSync(hooks, "utf8").replaceAll(" --host copilot", ""));
      const server = await modelServer(() => ANSWER);
      assertRan(await promptCopilot(fixture, server));
      const text = chatText(server.requests.filter(fromCopilot)[0]);
      assert.equal(occurrences(text, INDEX_LINE), 0);
      assert.equal(occurrences(text, SECRET_WORD), 0);
      await backgroundDone(fixture.home);
    });

    it("saves through memdir's MCP tool (memdir-memory_save): the file and its MEMORY.md line, 3 runs of 3", async () => {
      for (let attempt = 1; attempt <= 3; attempt++) {
        const fixture = copilotProject();
        await setupMemdir(fixture);
        const server = await modelServer((request) => {
          if (toolResults(request).length > 0) return "Saved.";
          return toolNames(request).includes(SAVE_TOOL)
            ? { toolCall: { name: SAVE_TOOL, input: SAVE_INPUT } }
            : "memory_save was not offered.";
        });
        const run = await promptCopilot(
          fixture,
          server,
          "For future sessions: the release train leaves on Thursdays.",
        );
        assertRan(run);
        const saved = newMemories(fixture.memoryDir);
        assert.equal(saved.length, 1, `run ${attempt}: ${saved.join(", ")} (${run.stdout})`);
        assert.match(
          fs.readFileSync(path.join(fixture.memoryDir, saved[0]), "utf8"),
          /every Thursday at 15:00 UTC/,
        );
        const index = fs.readFileSync(path.join(fixture.memoryDir, "MEMORY.md"), "utf8");
        assert.ok(index.startsWith(`${INDEX_LINE}\n`), "the earlier line is kept");
        assert.equal(occurrences(index, `](${saved[0]})`), 1, `run ${attempt}: its index line`);
        const last = server.requests.filter(fromCopilot).at(-1)!;
        assert.ok(toolResults(last).join("\n").includes(saved[0]), "the tool result names the file");
        await backgroundDone(fixture.home);
      }
    });

    it('ends a "remember …" prompt with exactly one memory: the prompt hook saves it and tells the model', async () => {
      const fixture = copilotProject();
      await setupMemdir(fixture);
      // A model that saves unless it was told the memory is saved.
      const server = await modelServer((request) => {
        if (toolResults(request).length > 0) return "Saved.";
        if (chatText(request).includes("memdir: Saved")) return "Noted.";
        return { toolCall: { name: SAVE_TOOL, input: SAVE_INPUT } };
      });
      assertRan(
        await promptCopilot(
          fixture,
          server,
          "Remember that the release train leaves every Thursday at 15:00 UTC.",
        ),
      );
      await backgroundDone(fixture.home);
      const saved = newMemories(fixture.memoryDir);
      assert.equal(saved.length, 1, saved.join(", "));
      assert.match(fs.readFileSync(path.join(fixture.memoryDir, saved[0]), "utf8"), /Thursday at 15:00 UTC/);
      const index = fs.readFileSync(path.join(fixture.memoryDir, "MEMORY.md"), "utf8").trim().split("\n");
      assert.equal(index.length, 2, index.join("\n"));
    });

    it("extracts after the turn from Copilot's session log when the hook entry gives memdir a model", async () => {
      const fixture = copilotProject();
      await setupMemdir(fixture);
      const server = await modelServer(() => ANSWER);
      // Copilot strips OPENAI_API_KEY and OPENAI_BASE_URL from its hooks' environment: the hook
      // entry's own "env" gives them back (docs/integrations.md#copilot-cli).
      const hooks = path.join(fixture.home, ".copilot", "hooks", "memdir.json");
      const doc = JSON.parse(fs.readFileSync(hooks, "utf8")) as {
        hooks: Record<string, Record<string, unknown>[]>;
      };
      for (const entry of doc.hooks.Stop)
        entry.env = {
          MEMDIR_PROVIDER: "openai",
          MEMDIR_MODEL: "fake-model",
          OPENAI_API_KEY: "dummy",
          OPENAI_BASE_URL: server.openaiBaseURL,
        };
      fs.writeFileSync(hooks, JSON.stringify(doc));
      assertRan(await promptCopilot(fixture, server));
      await backgroundDone(fixture.home);
      const extraction = server.requests.filter((request) => !fromCopilot(request));
      assert.ok(extraction.length > 0, "memdir's extraction asked the model");
      assert.ok(
        extraction.some(
          (request) => chatText(request).includes(PROMPT) && chatText(request).includes(ANSWER),
        ),
        "with the turn read from events.jsonl",
      );
    });

    it("brings the memory anchored to a file the model reads with view, once: a second read adds nothing", async () => {
      const fixture = copilotProject();
      const login = path.join(fixture.project, "src", "auth", "login.ts");
      fs.mkdirSync(path.dirname(login), { recursive: true });
      fs.writeFileSync(login, "export function login() {\n  return refresh();\n}\n");
      const fileWord = "OSPREY-3"; // only in the anchored memory: the model sees it only if postToolUse added it
      writeMemory(
        fixture.memoryDir,
        "project-login-refresh.md",
        `---\ndescription: token refresh rule\ntype: project\nanchors:\n  - path: src/auth/login.ts\n---\nEvery change here must keep the ${fileWord} refresh order.\n`,
      );
      await setupMemdir(fixture);
      const answer = "It returns refresh().";
      const server = await modelServer((request) => {
        const done = toolResults(request).length;
        if (done === 0)
          return { toolCall: { name: "bash", input: { command: "echo hi", description: "say hi" } } };
        if (done < 3) return { toolCall: { name: "view", input: { path: login } } };
        return answer;
      });
      const run = await promptCopilot(fixture, server, "Show me what the entry point contains.");
      assertRan(run);
      await backgroundDone(fixture.home);
      const main = server.requests.filter(fromCopilot);
      const byResults = (count: number) => main.find((request) => toolResults(request).length === count);
      assert.ok(byResults(1) && byResults(2) && byResults(3), `four model requests (${main.length})`);
      assert.equal(occurrences(chatText(byResults(1)!), fileWord), 0, "not after the shell command");
      assert.equal(occurrences(chatText(byResults(2)!), fileWord), 1, "after the read: the memory, once");
      assert.equal(occurrences(chatText(byResults(3)!), fileWord), 1, "the second read adds it no more");
    });
  });

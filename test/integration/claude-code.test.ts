import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { askHelper } from "../../src/helper/ask.ts";
import { helperPaths } from "../../src/helper/paths.ts";
import { sanitizeProjectPath } from "../../src/memdir/location/paths.ts";
import { memorySystemPrompt } from "../../src/prompts/memory-rules.ts";
import {
  type FakeModelServer,
  type FakeRequest,
  type FakeStep,
  startFakeModelServer,
} from "../../src/testing/index.ts";
import {
  CLAUDE_CODE_VERSION,
  type ClaudeRun,
  fromClaudeCode,
  installClaudeCode,
  memdirOnPath,
  modelVisibleText,
  occurrences,
  processesOfHome,
  runClaude,
} from "../helpers/claude-code.ts";
import { runCli, runProcess } from "../helpers/cli.ts";
import { makeMemdirPackage } from "../helpers/memdir-package.ts";
import { memory, writeMemory } from "../helpers/memory.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";
import { waitFor } from "../helpers/wait.ts";

// The real Claude Code CLI, installed from the npm registry and run in print
// mode against the fake model server: what memdir wired into it puts in front of the model.

const install = installClaudeCode();
const skip = "skip" in install ? install.skip : false;
const claudeBin = "bin" in install ? install.bin : "";

const INDEX_LINE = "- [Staging freeze](project-staging-freeze.md) — staging deploys freeze on Fridays";
const SECRET_WORD = "KESTREL-7"; // only in the memory's body: seen by the model only if recall surfaced it
const PROMPT = "When does the staging deploy freeze start this week?";
const ANSWER = "The staging freeze starts Friday at noon.";
/** Claude Code's own memory rules open with this (its system prompt's "# Memory" section). */
const CLAUDE_CODE_RULES = "You have a persistent file-based memory at";

interface ClaudeProject {
  home: string;
  project: string;
  memoryDir: string;
  pathDirs: string[];
}

/** A temp HOME with a project `shop` whose memory dir (where Claude Code keeps it) holds one memory. */
function claudeProject(): ClaudeProject {
  const home = makeTempDir("memdir-claude-code-");
  const project = path.join(home, "shop");
  fs.mkdirSync(project);
  const memoryDir = path.join(home, ".claude", "projects", sanitizeProjectPath(project), "memory");
  writeTree(memoryDir, {
    "MEMORY.md": `${INDEX_LINE}\n`,
    "project-staging-freeze.md": memory(
      "staging deploys freeze on Fridays",
      `The staging deploy freeze starts every Friday at noon; the release channel calls it ${SECRET_WORD}.`,
      "project",
    ),
  });
  after(() => {
    for (const pid of processesOfHome(home)) {
      try {
        process.kill(pid, "SIGKILL"); // only what this test's runs left behind
      } catch {}
    }
  });
  return { home, project, memoryDir, pathDirs: [memdirOnPath(home)] };
}

/**
 * Wires memdir into Claude Code the way a user does: `memdir setup claude-code` as a child
 * process in the temp HOME and project, writing `~/.claude/settings.json` (the hooks) and
 * `~/.claude.json` (the MCP server), which Claude Code then reads as it would for that user.
 * `recommended` is the recommended setup (`--recommended`: Claude Code's auto memory off, memdir's
 * on). `typo` then mistypes the UserPromptSubmit hook's event in settings.json, as a user editing it
 * by hand might.
 */
async function setupMemdir(
  { home, project, pathDirs }: ClaudeProject,
  options: { recommended?: boolean; typo?: string } = {},
): Promise<void> {
  // `--command memdir`: the documented command, which the wrapper on this PATH answers (a wrapper
  // around the test build, not a link to bin/memdir.js, so setup would otherwise write the
  // absolute form: test/cli/setup-first-run.test.ts).
  const args = [
    "setup",
    "claude-code",
    "--json",
    "--command",
    "memdir",
    ...(options.recommended ? ["--recommended"] : []),
  ];
  const setup = await runCli(args, {
    home,
    cwd: project,
    env: { PATH: [...pathDirs, process.env.PATH ?? ""].join(path.delimiter) },
  });
  assert.equal(setup.code, 0, `memdir setup: ${setup.stderr}`);
  const written = (JSON.parse(setup.stdout) as { files: { path: string; changed: boolean }[] }).files;
  assert.deepEqual(
    written.map(({ path: file, changed }) => ({ path: file, changed })),
    [
      { path: path.join(home, ".claude", "settings.json"), changed: true },
      { path: path.join(home, ".claude.json"), changed: true },
    ],
  );
  if (options.typo) {
    const settings = path.join(home, ".claude", "settings.json");
    const text = fs.readFileSync(settings, "utf8");
    assert.ok(text.includes("memdir hook user-prompt-submit"), text);
    fs.writeFileSync(settings, text.replace("memdir hook user-prompt-submit", `memdir hook ${options.typo}`));
  }
}

/**
 * The fake model's script, by request content rather than order, so it holds whatever side
 * requests Claude Code makes: memdir's own requests (another user agent) get a selection of every
 * memory offered, or a reply with nothing to save; Claude Code's get `claudeStep`.
 */
function script(claudeStep: (request: FakeRequest) => FakeStep) {
  return (request: FakeRequest): FakeStep => {
    if (fromClaudeCode(request)) return claudeStep(request);
    if (JSON.stringify(request.jsonSchema ?? {}).includes("selected_memories")) {
      const offered = [...request.userText.matchAll(/([\w.-]+\.md)\b/g)].map((match) => match[1]);
      return { json: { selected_memories: [...new Set(offered)].filter((file) => file !== "MEMORY.md") } };
    }
    return "Nothing worth saving.";
  };
}

/**
 * A fake model server answering by {@link script}, closed when the suite or test it was started
 * in ends. Start it (and make the fixture) in a describe body or a test: an `after` registered in
 * a `before` hook runs as soon as that hook is done.
 */
async function modelServer(claudeStep: (request: FakeRequest) => FakeStep): Promise<FakeModelServer> {
  const server = startFakeModelServer(script(claudeStep));
  after(async () => (await server).close());
  return server;
}

/** Claude Code's requests that carry the user's prompt (its main loop, not a side request). */
function mainRequests(server: FakeModelServer): FakeRequest[] {
  return server.requests.filter(
    (request) => fromClaudeCode(request) && modelVisibleText(request).includes(PROMPT),
  );
}

/** Waits until nothing the run started is still running (memdir's detached extraction, warm-up). */
async function backgroundDone(home: string): Promise<void> {
  await waitFor(() => processesOfHome(home).length === 0, { what: "the run's background processes" });
}

function assertAnswered(run: ClaudeRun): void {
  assert.equal(run.code, 0, `claude exited ${run.code}: ${run.stderr}${run.stdout}`);
  assert.equal(run.result?.is_error, false, run.stdout);
  assert.equal(run.result?.result, ANSWER, run.stdout);
}

/** Sends `prompt` (the shared one by default) through Claude Code in the fixture's project. */
function promptClaude(
  fixture: ClaudeProject,
  server: FakeModelServer,
  options: { prompt?: string; args?: string[]; env?: Record<string, string> } = {},
): Promise<ClaudeRun> {
  return runClaude(claudeBin, {
    ...fixture,
    cwd: fixture.project,
    prompt: options.prompt ?? PROMPT,
    baseURL: server.anthropicBaseURL,
    args: options.args,
    // A generous bound for memdir's hooks (Claude Code hands its environment to them): on a loaded
    // machine the default 3 s can run out, and a hook then answers {} (as it should); these tests
    // are about what reaches the model, not how fast.
    env: { MEMDIR_HOOK_TIMEOUT_MS: "60000", ...options.env },
  });
}

/**
 * For a describe body: a project wired by `wiring`, and one prompt sent through Claude Code in the
 * suite's `before` hook. The returned function gives the run to the suite's tests.
 */
function promptOnceInSuite(wiring: Parameters<typeof setupMemdir>[1]): () => {
  fixture: ClaudeProject;
  server: FakeModelServer;
  run: ClaudeRun;
} {
  const fixture = claudeProject();
  const started = modelServer(() => ANSWER);
  let result: { fixture: ClaudeProject; server: FakeModelServer; run: ClaudeRun } | null = null;
  before(async () => {
    await setupMemdir(fixture, wiring);
    const server = await started;
    result = { fixture, server, run: await promptClaude(fixture, server) };
  });
  return () => {
    assert.ok(result, "the suite's prompt was sent");
    return result;
  };
}

const TITLE = `Claude Code ${CLAUDE_CODE_VERSION} with memdir (the real CLI, offline)`;

// Skipped as one counted test (the summary line counts leaf tests, not suites).
if (skip) it(TITLE, { skip }, () => {});
else
  describe(TITLE, () => {
    describe("recommended setup: Claude Code's auto memory off, memdir's hooks on", () => {
      const suiteRun = promptOnceInSuite({ recommended: true });

      it("answers, and the memory recall picked reaches the model with the prompt", () => {
        const { fixture, server, run } = suiteRun();
        assertAnswered(run);
        const [first] = mainRequests(server);
        assert.ok(first, "Claude Code sent the prompt to the model");
        const text = modelVisibleText(first);
        assert.ok(text.includes(SECRET_WORD), "the recalled memory's body is in the request");
        assert.ok(text.includes(path.join(fixture.memoryDir, "project-staging-freeze.md")));
      });

      it("gives the model one set of memory rules (memdir's) and one copy of the index", () => {
        const { fixture, server } = suiteRun();
        const text = modelVisibleText(mainRequests(server)[0]);
        const memdirRules = memorySystemPrompt({ memoryDir: fixture.memoryDir }).slice(0, 160);
        assert.equal(occurrences(text, CLAUDE_CODE_RULES), 0, "Claude Code's own memory rules are off");
        assert.equal(occurrences(text, memdirRules), 1, "memdir's rules, once");
        assert.equal(occurrences(text, INDEX_LINE), 1, "the index line, once");
      });

      // Claude Code escapes a <system-reminder> tag in hook context to "&lt;system-reminder>", so
      // memdir's hook adds recalled memories without them (docs/integrations.md).
      it("passes recalled memories through as written: no <system-reminder> tags Claude Code must escape", () => {
        const { server } = suiteRun();
        const text = modelVisibleText(mainRequests(server)[0]);
        assert.ok(text.includes(SECRET_WORD));
        assert.equal(occurrences(text, "&lt;system-reminder"), 0, "escaped tags reach the model");
      });

      // The host's ANTHROPIC_API_KEY is Claude Code's, not a choice to let memdir call a model:
      // model selection and extraction are opt-in.
      it("makes no model request of memdir's own when only the host's ANTHROPIC_API_KEY is set", async () => {
        const { fixture, server } = suiteRun();
        await backgroundDone(fixture.home);
        const own = server.requests.filter((request) => !fromClaudeCode(request));
        assert.deepEqual(
          own.map((request) => `${request.headers["user-agent"]} ${String(request.body?.model)}`),
          [],
        );
      });
    });

    describe("Claude Code's default: its auto memory on, memdir's hooks added", () => {
      const suiteRun = promptOnceInSuite({});

      it("Claude Code's memory directory is the one memdir reads", () => {
        const { fixture, server, run } = suiteRun();
        assertAnswered(run);
        const text = modelVisibleText(mainRequests(server)[0]);
        assert.ok(text.includes(`${CLAUDE_CODE_RULES} \`${fixture.memoryDir}/\``), "the rules name it");
        assert.ok(text.includes(path.join(fixture.memoryDir, "MEMORY.md")), "the index loaded from it");
      });

      it("still brings the recalled memory to the model", () => {
        const { server } = suiteRun();
        assert.ok(modelVisibleText(mainRequests(server)[0]).includes(SECRET_WORD));
      });

      // With Claude Code's own memory on, memdir adds recall only: one set of rules, one index.
      it("gives the model one set of memory rules and one copy of the index", () => {
        const { fixture, server } = suiteRun();
        const text = modelVisibleText(mainRequests(server)[0]);
        const memdirRules = memorySystemPrompt({ memoryDir: fixture.memoryDir }).slice(0, 160);
        assert.equal(occurrences(text, CLAUDE_CODE_RULES) + occurrences(text, memdirRules), 1, "rule sets");
        assert.equal(occurrences(text, INDEX_LINE), 1, "copies of the index line");
      });
    });

    it("lets memdir's hooks ask the model when memdir is configured for one (MEMDIR_PROVIDER)", async () => {
      const fixture = claudeProject();
      await setupMemdir(fixture, { recommended: true });
      const server = await modelServer(() => ANSWER);
      const run = await promptClaude(fixture, server, { env: { MEMDIR_PROVIDER: "anthropic" } });
      assertAnswered(run);
      await backgroundDone(fixture.home);
      const selection = server.requests.find(
        (request) => !fromClaudeCode(request) && request.userText.includes(PROMPT),
      );
      assert.ok(selection, "memdir's memory selection for the prompt went to the configured model");
      assert.ok(modelVisibleText(mainRequests(server)[0]).includes(SECRET_WORD));
    });

    it("is served by the memory helper when one runs: session start and the prompt go through it", async () => {
      const fixture = claudeProject();
      // memdir as installed: bin/memdir.js, the client that asks the helper first.
      const pkg = makeMemdirPackage();
      fixture.pathDirs = [memdirOnPath(fixture.home, [process.execPath, pkg.bin])];
      await setupMemdir(fixture, { recommended: true });
      const server = await modelServer(() => ANSWER);
      const paths = helperPaths(fixture.home, pkg.mainFile);
      assert.ok(paths, "a helper is possible here");
      const env = { PATH: process.env.PATH ?? "", HOME: fixture.home, NO_COLOR: "1" };
      // Running already, as after an earlier session: a headless run's first prompt comes before
      // the helper its session start launches is listening.
      const start = await runProcess(process.execPath, [pkg.bin, "helper", "start"], {
        cwd: fixture.home,
        env,
      });
      assert.equal(start.code, 0, start.stderr);
      try {
        await waitFor(async () => (await askHelper(paths, { op: "status" }, 1000)).kind === "answered", {
          what: "the helper to answer",
        });
        const run = await promptClaude(fixture, server, { env: { MEMDIR_HELPER: "1" } });
        assertAnswered(run);
        assert.ok(modelVisibleText(mainRequests(server)[0]).includes(SECRET_WORD), "the recalled memory");
        const status = await askHelper(paths, { op: "status" }, 2000);
        assert.equal(status.kind, "answered");
        const { requests, memoryDirs } = status.lines[0] as { requests: number; memoryDirs: string[] };
        assert.equal(requests, 2, "the helper answered the session start and the prompt");
        assert.deepEqual(memoryDirs, [fixture.memoryDir]);
      } finally {
        await runProcess(process.execPath, [pkg.bin, "helper", "stop"], { cwd: fixture.home, env });
      }
      await backgroundDone(fixture.home);
    });

    // Failed before: memdir took autoMemoryDirectory as a root and looked in
    // <it>/projects/<project>/memory, where Claude Code keeps nothing.
    it("reads and recalls from the folder autoMemoryDirectory names, the one Claude Code uses", async () => {
      const fixture = claudeProject();
      const shared = path.join(fixture.home, "notes", "memory");
      fs.mkdirSync(path.dirname(shared), { recursive: true });
      fs.renameSync(fixture.memoryDir, shared);
      fixture.memoryDir = shared;
      await setupMemdir(fixture);
      const settingsFile = path.join(fixture.home, ".claude", "settings.json");
      const settings = JSON.parse(fs.readFileSync(settingsFile, "utf8")) as Record<string, unknown>;
      fs.writeFileSync(settingsFile, JSON.stringify({ ...settings, autoMemoryDirectory: "~/notes/memory" }));
      const server = await modelServer(() => ANSWER);
      const run = await promptClaude(fixture, server);
      assertAnswered(run);
      const text = modelVisibleText(mainRequests(server)[0]);
      assert.ok(text.includes(path.join(shared, "MEMORY.md")), "Claude Code loaded the index from it");
      assert.ok(text.includes(SECRET_WORD), "memdir's hook recalled the memory from it");
      await backgroundDone(fixture.home);
    });

    // Failed before hook conformance (test/cli/hook-conformance.test.ts): the typo exited 2, and Claude Code then
    // erased the prompt and sent nothing to the model.
    it("still sends the prompt and answers when the UserPromptSubmit hook names a mistyped event", async () => {
      const fixture = claudeProject();
      await setupMemdir(fixture, { typo: "user-prompt-sumbit" });
      const server = await modelServer(() => ANSWER);
      const run = await promptClaude(fixture, server);
      assert.equal(mainRequests(server).length, 1, "the prompt reached the model");
      assertAnswered(run);
    });

    it("brings the memory anchored to a file the model reads, once: a second Read adds nothing", async () => {
      const fixture = claudeProject();
      const login = path.join(fixture.project, "src", "auth", "login.ts");
      fs.mkdirSync(path.dirname(login), { recursive: true });
      fs.writeFileSync(login, "export function login() {\n  return refresh();\n}\n");
      const fileWord = "OSPREY-3"; // only in the anchored memory: seen by the model only if the file hook added it
      writeMemory(
        fixture.memoryDir,
        "project-login-refresh.md",
        `---\ndescription: token refresh rule\ntype: project\nanchors:\n  - path: src/auth/login.ts\n---\nEvery change here must keep the ${fileWord} refresh order.\n`,
      );
      await setupMemdir(fixture, { recommended: true });
      const prompt = "Show me what the entry point contains.";
      const results = (request: FakeRequest) =>
        occurrences(JSON.stringify(request.body?.messages ?? []), '"tool_result"');
      const server = await modelServer((request) => {
        // Read, Read the same file again, then answer.
        if (results(request) < 2) return { toolCall: { name: "Read", input: { file_path: login } } };
        return ANSWER;
      });
      const run = await promptClaude(fixture, server, { prompt });
      assertAnswered(run);
      const main = server.requests.filter(
        (request) => fromClaudeCode(request) && modelVisibleText(request).includes(prompt),
      );
      const byResults = (count: number) => main.find((request) => results(request) === count);
      assert.ok(byResults(0) && byResults(1) && byResults(2), `three model requests (${main.length})`);
      assert.equal(occurrences(modelVisibleText(byResults(0)!), fileWord), 0, "not before the file was read");
      assert.equal(
        occurrences(modelVisibleText(byResults(1)!), fileWord),
        1,
        "after the Read: the anchored memory, once",
      );
      assert.equal(
        occurrences(modelVisibleText(byResults(2)!), fileWord),
        1,
        "the second Read adds it no more",
      );
      await backgroundDone(fixture.home);
    });

    it("saves a memory through Claude Code's MCP client (memory_save, after ToolSearch loads it)", async () => {
      const fixture = claudeProject();
      // The MCP server entry setup wrote in ~/.claude.json (user scope), which Claude Code loads itself.
      await setupMemdir(fixture);
      const save = {
        type: "project",
        description: "the release train leaves on Thursdays",
        content: "The release train leaves every Thursday at 15:00 UTC.\nWhy: the QA rota ends on Thursdays.",
      };
      const prompt = "For future sessions: the release train leaves every Thursday at 15:00 UTC.";
      // Claude Code defers MCP tools: the model first loads the schema with ToolSearch, then calls it.
      const server = await modelServer((request) => {
        const tools = ((request.body?.tools ?? []) as { name: string }[]).map((tool) => tool.name);
        const messages = (request.body?.messages ?? []) as { content: unknown }[];
        const last = JSON.stringify(messages.at(-1)?.content ?? "");
        if (last.includes("tool_result") && last.includes("release-train")) return "Saved.";
        if (tools.includes("mcp__memdir__memory_save"))
          return { toolCall: { name: "mcp__memdir__memory_save", input: save } };
        if (modelVisibleText(request).includes("mcp__memdir__memory_save"))
          return { toolCall: { name: "ToolSearch", input: { query: "select:mcp__memdir__memory_save" } } };
        return "memory_save was not offered.";
      });
      const run = await promptClaude(fixture, server, {
        prompt,
        args: ["--allowedTools", "mcp__memdir__memory_save"],
        // Claude Code connects MCP servers without waiting by default: on a loaded box its first
        // request went out before memdir's server had answered (twice, Node 24, load 15–20), and
        // the tools were left out of the turn. This test is about the save, so Claude Code waits.
        env: { MCP_CONNECTION_NONBLOCKING: "false" },
      });
      assert.equal(run.code, 0, `${run.stderr}${run.stdout}`);
      assert.equal(run.result?.result, "Saved.", run.stdout);

      const claudeRequests = server.requests.filter(fromClaudeCode);
      const offered = claudeRequests
        .flatMap((request) => (request.body?.tools ?? []) as { name: string; input_schema?: unknown }[])
        .find((tool) => tool.name === "mcp__memdir__memory_save");
      assert.ok(offered, "memdir's memory_save schema reached the model");
      assert.deepEqual(((offered.input_schema as { required?: string[] }).required ?? []).sort(), [
        "content",
        "description",
        "type",
      ]);
      const saved = fs.readdirSync(fixture.memoryDir).filter((file) => file.includes("release-train"));
      assert.equal(saved.length, 1, `one new memory file in ${fs.readdirSync(fixture.memoryDir).join(", ")}`);
      const file = saved[0];
      assert.match(
        fs.readFileSync(path.join(fixture.memoryDir, file), "utf8"),
        /every Thursday at 15:00 UTC/,
      );
      const index = fs.readFileSync(path.join(fixture.memoryDir, "MEMORY.md"), "utf8");
      assert.ok(index.startsWith(`${INDEX_LINE}\n`), "the earlier index line is kept");
      assert.ok(index.includes(`](${file})`), "the new memory's index line");
      const resultText = modelVisibleText(claudeRequests.at(-1)!);
      assert.ok(resultText.includes(file), "the tool result the model read names the file");
    });
  });

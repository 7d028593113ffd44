import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { withServerTable } from "../../../src/hosts/shared/toml-config.ts";
import { scanToml } from "../../../src/hosts/shared/toml-scan.ts";

const SERVER = { command: "memdir", args: ["mcp"] };
const TABLE = '[mcp_servers.memdir]\ncommand = "memdir"\nargs = ["mcp"]\n';

// A config.toml with what a line-based edit gets wrong: a multi-line string holding a line that
// looks like memdir's header, literal and escaped quotes, comments everywhere, odd spacing, arrays
// and an inline table across lines, a sub-table of another server and a CRLF line.
const AWKWARD = [
  "# Codex settings, kept by hand   ",
  'model   =    "gpt-5.5"   # the default',
  'developer_instructions = """',
  "Paste this into config.toml:",
  "[mcp_servers.memdir]",
  'command = "old"',
  'a quote: \\""" and two more: ""',
  '"""',
  "notes = '''",
  "[mcp_servers.memdir.env]",
  "'''",
  "",
  "[ features ]   # spaced header",
  "hooks = true\r",
  "",
  "[mcp_servers.docs]",
  'args = [ "--port",   # first',
  '  "0", ]',
  'env = { A = "1", B = "[mcp_servers.memdir]" }',
  "",
  "",
].join("\n");

describe("Codex config.toml: memdir's table", () => {
  it("setup then --remove gives back the file byte for byte", () => {
    const added = withServerTable(AWKWARD, SERVER, "config.toml");
    assert.equal(added, `${AWKWARD}\n${TABLE}`, "the rest stays and the table goes at the end");
    assert.equal(withServerTable(added, SERVER, "config.toml"), added, "a second run changes nothing");
    assert.equal(withServerTable(added, null, "config.toml"), AWKWARD);
    assert.equal(withServerTable(AWKWARD, null, "config.toml"), AWKWARD, "nothing to remove");
    const plain = "a = 1\n";
    assert.equal(withServerTable(withServerTable(plain, SERVER, "c"), null, "c"), plain);
    assert.equal(withServerTable(withServerTable("", SERVER, "c"), null, "c"), "");
    assert.equal(withServerTable("", SERVER, "c"), TABLE);
  });

  it("takes a header-looking line inside a string for text, not for memdir's table", () => {
    const statements = scanToml(AWKWARD);
    assert.deepEqual(
      statements.filter((statement) => statement.kind !== "key-value").map((statement) => statement.keys),
      [["features"], ["mcp_servers", "docs"]],
    );
  });

  it("sets only the keys it owns and keeps the user's keys, comments and sub-tables", () => {
    const mine = [
      "[mcp_servers.memdir]  # memory",
      'command = "node"   # was a path',
      "startup_timeout_sec = 30",
      "required = true",
      'args = [ "mcp" ]',
      "",
      "[mcp_servers.memdir.env]",
      'MEMDIR_MODEL = "claude-haiku-4-5"',
      "",
    ].join("\n");
    const merged = withServerTable(mine, SERVER, "config.toml");
    assert.equal(merged, mine.replace('command = "node"', 'command = "memdir"'));
    assert.equal(withServerTable(merged, SERVER, "config.toml"), merged, "equal args in other spacing stay");
    const noKeys = "[mcp_servers.memdir]\nstartup_timeout_sec = 30\n";
    assert.equal(
      withServerTable(noKeys, SERVER, "config.toml"),
      '[mcp_servers.memdir]\ncommand = "memdir"\nargs = ["mcp"]\nstartup_timeout_sec = 30\n',
    );
    // --remove takes the table and its sub-tables out, and the lines around them stay.
    const between = `x = 1\n\n${mine}\n# tui settings\n[tui]\ny = 2\n`;
    assert.equal(withServerTable(between, null, "config.toml"), "x = 1\n\n# tui settings\n[tui]\ny = 2\n");
  });

  it("refuses a server it cannot edit in place, and a file it cannot read, naming the line", () => {
    const cases: Array<[string, RegExp]> = [
      ['[mcp_servers]\nmemdir = { command = "memdir" }\n', /line 2: the memdir MCP server is defined inline/],
      ['mcp_servers.memdir.command = "memdir"\n', /line 1: the memdir MCP server is defined inline/],
      ['mcp_servers = { docs = { command = "d" } }\n', /line 1: the memdir MCP server is defined inline/],
      ['[mcp_servers]\nmemdir.args = ["mcp"]\n', /line 2: .*defined inline/],
      ['a = """\nnever closed\n', /cannot read it as TOML \(line 1: a """ string is never closed\)/],
      ["[mcp_servers.memdir\n", /cannot read it as TOML \(line 1: "\]" is missing/],
    ];
    for (const [text, message] of cases) {
      assert.throws(() => withServerTable(text, SERVER, "config.toml"), message, text);
      assert.throws(() => withServerTable(text, null, "config.toml"), message, text);
    }
  });
});

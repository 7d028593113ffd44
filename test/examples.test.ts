// The code a user copies must compile: every TypeScript block of README.md and docs/*.md, and
// every TSDoc `@example` written as a whole program (it imports from "memdir"), is type-checked
// against the sources as the package exports them. The other `@example`s are fragments — a call
// and its result, with "…" for what the reader fills in — and are left to review.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import ts from "typescript";

const REPO = path.resolve(import.meta.dirname, "..");

interface Snippet {
  /** Where it is written: `README.md:35`, `src/index.ts:24`. */
  where: string;
  code: string;
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split("\n").length;
}

/** The fenced TypeScript and JavaScript blocks of the README and the docs. */
function markdownSnippets(): Snippet[] {
  const files = ["README.md", ...fs.readdirSync(path.join(REPO, "docs")).map((name) => `docs/${name}`)];
  const snippets: Snippet[] = [];
  for (const file of files.filter((name) => name.endsWith(".md"))) {
    const text = fs.readFileSync(path.join(REPO, file), "utf8");
    for (const match of text.matchAll(/```(?:ts|typescript|js|javascript)\n([\s\S]*?)```/g))
      snippets.push({ where: `${file}:${lineOf(text, match.index)}`, code: match[1] });
  }
  return snippets;
}

/** Every `@example` of a TSDoc comment under src/, its leading ` * ` removed. */
function tsdocExamples(): Snippet[] {
  const snippets: Snippet[] = [];
  const visit = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.name.endsWith(".ts")) {
        const text = fs.readFileSync(full, "utf8");
        // To the comment's end or the next tag.
        for (const match of text.matchAll(/@example\n((?:[ \t]*\*(?![/]| ?@).*\n)+?)[ \t]*\*(?:\/| ?@)/g)) {
          const code = match[1]
            .split("\n")
            .map((line) => line.replace(/^[ \t]*\* ?/, ""))
            .join("\n");
          snippets.push({ where: `${path.relative(REPO, full)}:${lineOf(text, match.index)}`, code });
        }
      }
    }
  };
  visit(path.join(REPO, "src"));
  return snippets;
}

/**
 * What an example may use without defining it — the values a reader has at hand where the
 * example would go — with the types the API gives them. Declared after the example's own code
 * (declarations are hoisted), only when the example uses the name and does not define it.
 */
const PLACEHOLDERS: Record<string, string> = {
  memoryDir: "declare const memoryDir: string;",
  cwd: "declare const cwd: string;",
  client: 'declare const client: import("memdir").ModelClient;',
  config: 'declare const config: import("memdir/config").ResolvedConfig;',
  conversation: 'declare const conversation: import("memdir").Message[];',
  messages: 'declare const messages: import("memdir").Message[];',
  location: 'declare const location: import("memdir").MemoryLocation;',
  selector: 'declare const selector: import("memdir").Selector;',
  readFileState: 'declare const readFileState: import("memdir/agent").ReadFileState;',
  signal: "declare const signal: AbortSignal;",
  iteration: "declare const iteration: number;",
  hooks: 'declare const hooks: import("memdir/agent").HookRegistry;',
  callMyModel:
    'declare function callMyModel(request: unknown): Promise<{ blocks: Awaited<ReturnType<import("memdir").ModelClient["complete"]>>["content"]; toolCalls: boolean; inTokens: number; outTokens: number }>;',
  runMyAgent:
    'declare function runMyAgent(client: import("memdir").ModelClient, prompt: string): Promise<void>;',
};

/** The names a snippet declares at its top level: imports, variables (destructured too), functions, classes. */
function declaredNames(code: string): Set<string> {
  const source = ts.createSourceFile("example.ts", code, ts.ScriptTarget.ES2023, true, ts.ScriptKind.TS);
  const names = new Set<string>();
  const bind = (name: ts.BindingName): void => {
    if (ts.isIdentifier(name)) names.add(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bind(element.name);
  };
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement))
      for (const declaration of statement.declarationList.declarations) bind(declaration.name);
    else if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name)
      names.add(statement.name.text);
    else if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.name) names.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
      else if (bindings) for (const element of bindings.elements) names.add(element.name.text);
    }
  }
  return names;
}

const isProgram = (snippet: Snippet) => /from "memdir(?:\/[a-z]+)?"/.test(snippet.code);

describe("the examples a user copies", () => {
  const markdown = markdownSnippets();
  const examples = tsdocExamples();

  it("type-check: every README and docs block, and every @example that is a whole program", () => {
    const programs = [...markdown, ...examples.filter(isProgram)];
    assert.ok(programs.length >= 20, `found ${programs.length} programs`);
    // Inside the repository (under the ignored .tmp/), so the packages an example names resolve
    // from node_modules as they would in a user's project; an ES module package, as memdir is.
    fs.mkdirSync(path.join(REPO, ".tmp"), { recursive: true });
    const dir = fs.mkdtempSync(path.join(REPO, ".tmp", "examples-"));
    after(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.writeFileSync(path.join(dir, "package.json"), '{ "type": "module" }\n');
    const files = programs.map((snippet, n) => {
      const file = path.join(dir, `example-${n}.ts`);
      // The names an example leaves to the reader ("memoryDir", "client"), typed as the API has them.
      const declared = declaredNames(snippet.code);
      const preamble = Object.entries(PLACEHOLDERS)
        .filter(([name]) => !declared.has(name) && new RegExp(`\\b${name}\\b`).test(snippet.code))
        .map(([, declaration]) => declaration);
      fs.writeFileSync(file, `${snippet.code}\n${preamble.join("\n")}\nexport {};\n`);
      return { file, snippet };
    });
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2023,
      lib: ["lib.es2023.d.ts", "lib.esnext.disposable.d.ts"],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      allowImportingTsExtensions: true,
      esModuleInterop: true,
      types: ["node"],
      typeRoots: [path.join(REPO, "node_modules", "@types")],
      // The package's exports, read from the sources.
      paths: {
        memdir: [path.join(REPO, "src", "index.ts")],
        "memdir/testing": [path.join(REPO, "src", "testing", "index.ts")],
        "memdir/*": [path.join(REPO, "src", "entry", "*.ts")],
      },
    };
    const program = ts.createProgram(
      files.map(({ file }) => file),
      options,
    );
    const problems: string[] = [];
    for (const { file, snippet } of files) {
      const source = program.getSourceFile(file);
      const diagnostics = [
        ...program.getSyntacticDiagnostics(source),
        ...program.getSemanticDiagnostics(source),
      ];
      for (const diagnostic of diagnostics) {
        const line =
          diagnostic.file && diagnostic.start !== undefined
            ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1
            : 0;
        problems.push(
          `${snippet.where} (line ${line} of the example): ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`,
        );
      }
    }
    assert.deepEqual(problems, []);
  });
});

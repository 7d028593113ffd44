import fs from "node:fs/promises";
import path from "node:path";
import { MemdirError } from "../../errors.ts";
import { directiveCandidate, observationCandidate, type Row, summaryCandidate } from "./claude-mem-rows.ts";
import type { ImportCandidate, ReaderContext, SkippedSource, SourceRead } from "./types.ts";

/** Where claude-mem keeps its database unless told otherwise. */
export function defaultClaudeMemPath(context: Pick<ReaderContext, "home">): string {
  return path.join(context.home, ".claude-mem", "claude-mem.db");
}

/**
 * Reads claude-mem's SQLite database (docs/import.md#claude-mem) with sql.js: SQLite compiled to
 * WebAssembly and shipped inside the package, so it installs on Node 20 and 24 without a native
 * build or a binary download (Node 20 has no `node:sqlite`). Loaded here, on first use, so no
 * other command pays for it. The file is read into memory and never written.
 */
export async function readClaudeMem(from: string): Promise<SourceRead> {
  const bytes = await fs.readFile(from).catch((error: NodeJS.ErrnoException) => {
    throw new MemdirError(
      error.code === "ENOENT" ? "not-found" : "io",
      `import: claude-mem: cannot read ${from}: ${error.code ?? error.message}` +
        (error.code === "ENOENT" ? " (give the database with --from PATH)" : ""),
      { cause: error },
    );
  });
  const { default: initSqlJs } = await import("sql.js");
  const SQL = await initSqlJs();
  let db: InstanceType<typeof SQL.Database>;
  let tables: Set<string>;
  try {
    db = new SQL.Database(bytes);
    tables = new Set(
      rows(db, "SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => String(r.name)),
    );
  } catch (error) {
    throw new MemdirError(
      "invalid-input",
      `import: claude-mem: ${from} is not a SQLite database (${(error as Error).message})`,
      { cause: error },
    );
  }
  try {
    if (!tables.has("observations") && !tables.has("session_summaries"))
      throw new MemdirError(
        "invalid-input",
        `import: claude-mem: ${from} has neither an observations nor a session_summaries table: not claude-mem's database`,
      );
    const candidates: ImportCandidate[] = [];
    const skipped: SkippedSource[] = [];
    const take = (result: ImportCandidate | SkippedSource | null) => {
      if (result === null) return;
      if ("key" in result) candidates.push(result);
      else skipped.push(result);
    };
    if (tables.has("observations"))
      for (const row of rows(db, "SELECT * FROM observations ORDER BY id")) take(observationCandidate(row));
    if (tables.has("session_summaries"))
      for (const row of rows(db, "SELECT * FROM session_summaries ORDER BY id")) take(summaryCandidate(row));
    if (tables.has("directives"))
      for (const row of rows(db, "SELECT * FROM directives ORDER BY id")) take(directiveCandidate(row));
    return { candidates, skipped };
  } finally {
    db.close();
  }
}

function rows(
  db: { prepare(sql: string): { step(): boolean; getAsObject(): Row; free(): boolean } },
  sql: string,
): Row[] {
  const statement = db.prepare(sql);
  const result: Row[] = [];
  try {
    while (statement.step()) result.push(statement.getAsObject());
  } finally {
    statement.free();
  }
  return result;
}

import { listInbox } from "../dream/inbox.ts";
import { MemdirError } from "../errors.ts";
import type { Selector } from "../recall/selector.ts";
import type { DirectoryChoice } from "./directories.ts";
import type { MemoryView } from "./memory-view.ts";
import {
  acceptProposal,
  explainQuery,
  fixHealth,
  healthOf,
  historyOf,
  pendingProposals,
  rejectProposal,
  undoEntry,
} from "./review.ts";

/** One API call: `GET /api/<path>?…` reads, `POST /api/<path>` with a JSON body writes. */
export interface ApiRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown>;
}

/** What the routes need from the server. */
export interface ApiContext {
  /** The view of memory dir `dir` (null: the one the server started on); refuses dirs not listed. */
  viewOf(dir: string | null): Promise<MemoryView>;
  listDirectories(refresh: boolean): Promise<DirectoryChoice[]>;
  selector: Selector;
  /** Days a proposal waits before it expires (setting `inboxExpiryDays`; default 30). */
  inboxExpiryDays?: number;
}

function text(value: unknown, name: string): string {
  if (typeof value !== "string") throw new MemdirError("invalid-input", `ui: "${name}" must be a string`);
  return value;
}

function optionalNumber(value: string | null, name: string): number | undefined {
  if (value === null || value === "") return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new MemdirError("invalid-input", `ui: "${name}" must be a positive whole number`);
  return number;
}

function edits(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw new MemdirError("invalid-input", 'ui: "edits" must map files to their text');
  const result: Record<string, string> = {};
  for (const [file, content] of Object.entries(value)) result[file] = text(content, `edits.${file}`);
  return result;
}

type Handler = (request: ApiRequest, context: ApiContext, view: MemoryView) => Promise<unknown>;

const READS: Record<string, Handler> = {
  memories: (request, _context, view) =>
    view.list({
      type: request.query.get("type") ?? undefined,
      source: request.query.get("source") ?? undefined,
      since: request.query.get("since") ?? undefined,
      anchor: request.query.get("anchor") ?? undefined,
      search: request.query.get("q") ?? undefined,
      page: optionalNumber(request.query.get("page"), "page"),
      pageSize: optionalNumber(request.query.get("pageSize"), "pageSize"),
    }),
  memory: (request, _context, view) => view.get(text(request.query.get("file"), "file")),
  recall: (request, context, view) =>
    explainQuery(
      view.memdir,
      context.selector,
      text(request.query.get("q"), "q"),
      optionalNumber(request.query.get("k"), "k") ?? 5,
    ),
  inbox: async (_request, context, view) => ({
    proposals: await pendingProposals(view.memoryDir, { expiryDays: context.inboxExpiryDays }),
  }),
  history: async (request, _context, view) => {
    const history = await historyOf(view.memoryDir);
    const file = request.query.get("file");
    const entries =
      file === null || file === ""
        ? history.entries
        : history.entries.filter((entry) => entry.changes.some((change) => change.file === file));
    // Who saved each memory an entry touched, where its frontmatter says (docs/ui.md#pages).
    const provenance = await view.provenance(entries.flatMap((entry) => entry.changes.map((c) => c.file)));
    return { backend: history.backend, entries, provenance };
  },
  overview: async (_request, context, view) => ({
    ...(await view.overview()),
    // Counted, not shown: no flags or line diffs to build (listInbox expires as pendingProposals does).
    inbox: (await listInbox(view.memoryDir, { expiryDays: context.inboxExpiryDays })).length,
    // No recall is recorded anywhere (a recall reads, it writes nothing): there is no activity to draw.
    recall: null,
  }),
  health: (_request, _context, view) => healthOf(view.memoryDir),
};

const WRITES: Record<string, Handler> = {
  "memory/save": (request, _context, view) =>
    view.save({
      file: text(request.body.file, "file"),
      type: text(request.body.type, "type"),
      description: text(request.body.description, "description"),
      body: text(request.body.body, "body"),
      version: text(request.body.version, "version"),
    }),
  "memory/delete": (request, _context, view) => view.remove(text(request.body.file, "file")),
  "history/undo": (request, _context, view) => undoEntry(view.memoryDir, text(request.body.id, "id")),
  "inbox/accept": (request, _context, view) =>
    acceptProposal(view.memoryDir, text(request.body.id, "id"), edits(request.body.edits)),
  "inbox/reject": (request, _context, view) => rejectProposal(view.memoryDir, text(request.body.id, "id")),
  "health/fix": (_request, _context, view) => fixHealth(view.memoryDir),
};

/**
 * Answers one API call, or undefined for a path that is none. Every call names its memory dir
 * (`dir`, from the picker) or works on the one the server started on.
 */
export async function routeApi(request: ApiRequest, context: ApiContext): Promise<unknown> {
  if (request.method === "GET" && request.path === "dirs") {
    const dirs = await context.listDirectories(request.query.get("refresh") === "1");
    return { current: dirs[0]?.memoryDir ?? null, dirs };
  }
  const table = request.method === "GET" ? READS : request.method === "POST" ? WRITES : {};
  const handler = Object.hasOwn(table, request.path) ? table[request.path] : undefined;
  if (!handler) return undefined;
  const dir = request.method === "GET" ? request.query.get("dir") : request.body.dir;
  const view = await context.viewOf(typeof dir === "string" && dir !== "" ? dir : null);
  return handler(request, context, view);
}

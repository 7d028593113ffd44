import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { INDEX_FILE } from "../../memdir/format/index-file.ts";
import { defineMemoryTool, type MemoryToolSpec, type MemoryToolsOptions } from "./spec.ts";

const inputSchema = z.object({});

const truncatedSchema = z.union([z.literal(false), z.literal("lines"), z.literal("bytes")]);

const outputSchema = z.object({
  context: z
    .string()
    .describe("The user context a new session starts with: instruction files, the index, today's date"),
  files: z
    .array(
      z.object({
        path: z.string(),
        type: z.string().describe("Managed, User, Project, Local, AutoMem (the memory index) or TeamMem"),
        bytes: z.number().int(),
        imports: z.array(z.string()),
        truncated: truncatedSchema.optional(),
      }),
    )
    .describe("Every file loaded, in load order"),
  index: z.object({
    path: z.string().nullable(),
    exists: z.boolean(),
    loaded: z.boolean(),
    truncated: truncatedSchema.describe("Which limit cut the index (200 lines / 25,000 bytes), or false"),
    bytes: z.number().int(),
  }),
  autoMemory: z.boolean(),
  memoryDir: z.string().nullable(),
});

export type ContextToolOutput = z.infer<typeof outputSchema>;

/**
 * `memory_context`: what docs/design.md#session-start puts in a session's first request — the instruction files
 * (CLAUDE.md, AGENTS.md, rules) and the memory index as one user-context string — with a
 * manifest of every file loaded and whether the index loaded whole.
 */
export function createContextTool(
  options: MemoryToolsOptions,
): MemoryToolSpec<Record<string, never>, ContextToolOutput> {
  return defineMemoryTool({
    name: "memory_context",
    title: "Load session context",
    description:
      "Load the project's standing instructions (CLAUDE.md, AGENTS.md, rules files) and the MEMORY.md index of " +
      "saved memories, as one block to read at the start of a conversation. These instructions override " +
      "defaults. Also lists each file loaded and whether the index was cut by its limits.",
    inputSchema,
    outputSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(_input, context) {
      const { config } = options;
      const [{ getMemoryFiles }, { formatUserContext }] = await Promise.all([
        import("../../instructions/files.ts"),
        import("../../instructions/user-context.ts"),
      ]);
      const files = await getMemoryFiles({
        config,
        cwd: context.cwd,
        home: config.home,
        root: config.root,
        ...(context.memoryDir !== null ? { memoryDir: context.memoryDir } : {}),
      });
      const userContext = formatUserContext(files, { now: context.now });
      const loadedIndex = files.find((file) => file.type === "AutoMem");
      const indexPath = context.memoryDir === null ? null : path.join(context.memoryDir, INDEX_FILE);
      const indexExists =
        indexPath !== null &&
        (await fs.stat(indexPath).then(
          () => true,
          () => false,
        ));
      return {
        ok: true,
        output: {
          context: userContext,
          files: files.map((file) => ({
            path: file.path,
            type: file.type,
            bytes: file.bytes,
            imports: file.imports,
            ...(file.truncated !== undefined ? { truncated: file.truncated } : {}),
          })),
          index: {
            path: loadedIndex?.path ?? indexPath,
            exists: loadedIndex !== undefined || indexExists,
            loaded: loadedIndex !== undefined,
            truncated: loadedIndex?.truncated ?? false,
            bytes: loadedIndex?.bytes ?? 0,
          },
          autoMemory: config.autoMemory,
          memoryDir: context.memoryDir,
        },
        text: userContext,
      };
    },
  });
}

/**
 * The commands of Anthropic's memory tool (`memory_20250818`), spelled as the API sends them
 * (`@anthropic-ai/sdk`'s `BetaMemoryTool20250818Command`). Declared here so the handlers and the
 * framework-neutral tool set need no SDK at all; a test checks they match the SDK's types.
 */
export interface MemoryViewCommand {
  command: "view";
  path: string;
  /** `[first, last]` lines, 1-based; `last` -1 means to the end. */
  view_range?: number[];
}

export interface MemoryCreateCommand {
  command: "create";
  path: string;
  file_text: string;
}

export interface MemoryStrReplaceCommand {
  command: "str_replace";
  path: string;
  old_str: string;
  new_str: string;
}

export interface MemoryInsertCommand {
  command: "insert";
  path: string;
  insert_line: number;
  insert_text: string;
}

export interface MemoryDeleteCommand {
  command: "delete";
  path: string;
}

export interface MemoryRenameCommand {
  command: "rename";
  old_path: string;
  new_path: string;
}

/** Any one memory-tool command. */
export type MemoryCommand =
  | MemoryViewCommand
  | MemoryCreateCommand
  | MemoryStrReplaceCommand
  | MemoryInsertCommand
  | MemoryDeleteCommand
  | MemoryRenameCommand;

/**
 * The six handlers, each returning the text the model reads; a refusal is thrown as a
 * `MemdirError` with a readable message (the SDK's tool runner sends it back as an `is_error`
 * result). Structurally the SDK's `MemoryToolHandlers`, so `betaMemoryTool(handlers)` takes it.
 */
export interface MemdirMemoryToolHandlers {
  view(command: MemoryViewCommand): Promise<string>;
  create(command: MemoryCreateCommand): Promise<string>;
  str_replace(command: MemoryStrReplaceCommand): Promise<string>;
  insert(command: MemoryInsertCommand): Promise<string>;
  delete(command: MemoryDeleteCommand): Promise<string>;
  rename(command: MemoryRenameCommand): Promise<string>;
}

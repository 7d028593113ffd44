/**
 * Cline's MCP client as `memdir mcp` sees it in `initialize` (named `@cline/core` or `cline-…`),
 * which puts `structuredContent` in front of the model beside the text block, both in one tool
 * message (test/integration/cline.test.ts). Its own module, so the MCP server reads it without
 * loading the host registry (docs/design.md#hosts).
 */
export const CLINE_MCP_CLIENT = /cline/i;

import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";

/**
 * The JSON Schema validator the MCP SDK's Client and Server are given inside Workers. The SDK's
 * default (Ajv) compiles schemas to code at run time, which Workers forbid. Nothing of ours relies
 * on the SDK checking a tool's `structuredContent` against its `outputSchema`: results are read
 * as content blocks (protocol/mcp-results.ts), and the fleet's server asks clients for no input.
 */
export const NO_SCHEMA_VALIDATION: jsonSchemaValidator = {
  getValidator: () => (input: unknown) => ({ valid: true, data: input as never, errorMessage: undefined }),
};

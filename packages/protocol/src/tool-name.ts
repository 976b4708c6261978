/**
 * A valid tool name: `[A-Za-z0-9_-]{1,64}`, the widest name every provider accepts. The rule of
 * `ToolSpec.name`; test a name with `TOOL_NAME_PATTERN.test(name)` (no global flag: stateless).
 */
export const TOOL_NAME_PATTERN: RegExp = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Subagents: child sessions a parent agent delegates to through a task tool, replayable end to end.
 *
 * @packageDocumentation
 */

/** The package's version. */
export const VERSION = '0.1.0';

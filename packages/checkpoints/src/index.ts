/**
 * Workspace checkpoints, rewind and verified tool outcomes after a crash.
 *
 * @packageDocumentation
 */

/** The package's version. */
export const VERSION = '0.1.0';

/**
 * Model Context Protocol servers as recorded, approved, sandboxed Spine tools.
 *
 * @packageDocumentation
 */

/** The package's version. */
export const VERSION = '0.1.0';

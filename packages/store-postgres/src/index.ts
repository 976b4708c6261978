/**
 * A PostgreSQL SessionStore with leases and fencing, live followers and a task queue for workers.
 *
 * @packageDocumentation
 */

/** The package's version. */
export const VERSION = '0.1.0';

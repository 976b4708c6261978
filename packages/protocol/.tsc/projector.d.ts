import type { SessionEvent } from './events.js';
import type { Message } from './messages.js';
/**
 * Turns one surface event into the protocol message(s) it stands for. A session uses the
 * default projector for built-in types and the projections registered for custom ones.
 *
 * Contract: pure and deterministic; the same event always projects to the same messages,
 * so `replay` can rebuild every request. Throw only for events it cannot project.
 */
export interface Projector {
  /** Interface version. */
  readonly specificationVersion: 1;
  /** The message(s) for `event`; an empty array takes nothing into history. */
  project(event: SessionEvent): readonly Message[];
}
/** A custom event type registered with a session, with its optional projection. */
export interface EventTypeDefinition {
  /** The type, `noun/verb`, not one of the built-ins. */
  type: string;
  /** Whether events of this type may carry a surface op. */
  surface: boolean;
  /** Validates a body; throw or return an error message to reject it. */
  validate?: (body: unknown) => string | undefined;
  /** Required when `surface` is true: how the event becomes messages. */
  project?: (event: SessionEvent) => readonly Message[];
}
//# sourceMappingURL=projector.d.ts.map

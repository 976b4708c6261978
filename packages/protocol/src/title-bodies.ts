import { z } from 'zod';

// Bodies of the events that name a session for people (lists, pickers, terminal titles). They
// never take part in a model request.

// The longest title a `session/title` event carries, in UTF-16 code units.
const SESSION_TITLE_MAX_LENGTH = 200;

/** Body of `session/title`: the session's title from here on (the latest one wins). */
export const SessionTitleBodySchema = z.object({
  title: z
    .string()
    .min(1)
    .max(SESSION_TITLE_MAX_LENGTH)
    .describe('The title: one line, no control characters.'),
  source: z
    .literal(['auto', 'person'])
    .describe('`auto`: derived from the first request; `person`: set by someone (`/title`).'),
});
/** Body of `session/title`. */
export type SessionTitleBody = z.infer<typeof SessionTitleBodySchema>;

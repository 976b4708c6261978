import { z } from 'zod';

// Bodies of the events that record a change of a session's settings made while it runs (an
// editor's config option or mode, a person's command): the approval policy and the model. They
// never take part in a model request; the requests after the change record what they used.

/**
 * Body of `session/config`: one setting of the session changed from here on (the latest one of
 * each `option` wins). Plan mode is recorded as `plan/mode` instead.
 */
export const SessionConfigBodySchema = z.object({
  option: z
    .literal(['approval', 'model'])
    .describe('`approval`: the approval preset; `model`: the model of the next requests.'),
  value: z
    .string()
    .min(1)
    .max(256)
    .describe(
      'The new value: a preset or policy (read-only, ask, auto-edit, never-ask, deny-all) or `provider/model`.',
    ),
  previous: z.string().min(1).max(256).optional().describe('The value before the change.'),
  by: z
    .literal(['client', 'person'])
    .describe('`client`: an ACP client (editor) set it; `person`: a command in the terminal.'),
});
/** Body of `session/config`. */
export type SessionConfigBody = z.infer<typeof SessionConfigBodySchema>;

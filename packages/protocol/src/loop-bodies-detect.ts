import { z } from 'zod';

// Body of `loop/detected`: the agent loop's loop detector (issue 38) found the model repeating
// itself. The detector is a pure function of the log's own events, so a rerun of the session
// finds the same loops at the same steps.

const count = z.number().int().nonnegative();

/** What kind of loop the detector found. */
export const LoopKindSchema = z.literal([
  'repeated-call',
  'repeated-error',
  'alternating-calls',
  'repeated-text',
  'no-progress',
]);
/**
 * What kind of loop the detector found: the same tool call (name and canonical arguments) again
 * and again; the same failing result again and again; two calls alternating (A B A B …); an
 * assistant text repeating itself (within one answer or across answers); steps whose tool
 * results are all ones the turn has already seen.
 */
export type LoopKind = z.infer<typeof LoopKindSchema>;

/** Body of `loop/detected`. */
export const LoopDetectedBodySchema = z.object({
  kind: LoopKindSchema.describe('What kind of loop was found.'),
  action: z
    .literal(['noted', 'stopped'])
    .describe(
      '`noted`: the model was told (a `user/message` with source `loop-detector` follows); `stopped`: the loop went on and the turn ends with reason `stuck`.',
    ),
  count: count.describe('How many times the pattern has occurred in the turn so far.'),
  threshold: count.describe('The configured threshold the count reached.'),
  detail: z.string().describe('What repeats, in a few words (a tool name, a phrase).'),
  evidence: z
    .array(z.number().int().positive())
    .describe('Seqs of the events that make up the loop (assistant messages, tool results).'),
});
/** Body of `loop/detected`. */
export type LoopDetectedBody = z.infer<typeof LoopDetectedBodySchema>;

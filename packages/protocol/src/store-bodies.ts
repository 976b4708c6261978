import { z } from 'zod';

// Bodies of the events a shared store (one used by several processes or machines, such as
// @spine/store-postgres) writes into a session's log about who may write it.

/** Body of `lease/takeover`: a writer took over the session's lease from another. */
export const LeaseTakeoverBodySchema = z.object({
  reason: z
    .literal(['expired', 'holder-exited'])
    .describe('Why: the lease expired, or its holder was a process on this host that exited.'),
  previousOwner: z.string().describe('The writer that held the lease (host:pid:n).'),
  previousToken: z.number().int().nonnegative().describe('Its fencing token, now refused.'),
  previousExpiresAt: z.string().optional().describe('When its lease expired or would have.'),
  owner: z.string().describe('The writer that holds the lease now.'),
  token: z.number().int().positive().describe('The new fencing token.'),
});
/** Body of `lease/takeover`. */
export type LeaseTakeoverBody = z.infer<typeof LeaseTakeoverBodySchema>;

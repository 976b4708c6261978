import { z } from 'zod';

// Bodies of the workspace events: a checkpoint of the workspace files recorded before a step that
// may change them (by a CheckpointStore such as @spine/checkpoints' git store), and a restore of
// one. Replay does not act on them (no surface role); they are the audit trail of what the
// workspace looked like and what a rewind wrote.

/** One path a checkpoint or a restore saw change. */
export const WorkspacePathChangeSchema = z.object({
  path: z.string().min(1).describe('Workspace-relative path, `/`-separated.'),
  kind: z
    .literal(['added', 'modified', 'deleted', 'mode'])
    .describe('`added`/`deleted`: only on the newer/older side; `mode`: executable bit only.'),
});
/** One path a checkpoint or a restore saw change. */
export type WorkspacePathChange = z.infer<typeof WorkspacePathChangeSchema>;

/** Body of `workspace/checkpoint`: the workspace's files were recorded. */
export const WorkspaceCheckpointBodySchema = z.object({
  id: z
    .string()
    .min(1)
    .describe(
      "The snapshot's id in the checkpoint store (git: a tree id, or a commit over the tree when it records permission bits).",
    ),
  store: z.string().min(1).describe('Which store kind holds it, e.g. `git`.'),
  reason: z
    .literal(['step', 'turn-end', 'rewind'])
    .describe(
      '`step`: before a step that may change files; `turn-end`: after a turn that changed files; `rewind`: what a restore undid.',
    ),
  scope: z
    .literal(['workspace', 'paths'])
    .describe('`workspace`: every file scanned; `paths`: only the paths the step names re-read.'),
  previous: z.string().optional().describe('The snapshot this one was compared with.'),
  changes: z
    .array(WorkspacePathChangeSchema)
    .describe('Paths changed since `previous` (at most 200; `moreChanges` counts the rest).'),
  moreChanges: z.number().int().nonnegative().optional(),
  skipped: z.array(z.string()).optional().describe('Files left out for being over the size cap.'),
  outside: z
    .array(z.string())
    .optional()
    .describe(
      'Of `changes`, the paths this session did not change (a person, another session): found by comparing with what its last step left.',
    ),
  ms: z.number().nonnegative().optional().describe('How long the checkpoint took.'),
});
/** Body of `workspace/checkpoint`. */
export type WorkspaceCheckpointBody = z.infer<typeof WorkspaceCheckpointBodySchema>;

/** Body of `workspace/restored`: the workspace was put back to a checkpoint. */
export const WorkspaceRestoredBodySchema = z.object({
  target: z.string().min(1).describe('The snapshot restored.'),
  targetSeq: z
    .number()
    .int()
    .positive()
    .describe('Seq of the `workspace/checkpoint` event of `target` in this session.'),
  from: z.string().min(1).describe('The snapshot taken just before the restore (to undo it).'),
  reason: z.literal(['rewind', 'undo', 'abort']).describe('What asked for the restore.'),
  changes: z
    .array(WorkspacePathChangeSchema)
    .describe('What the restore wrote or removed (at most 200; `moreChanges` counts the rest).'),
  moreChanges: z.number().int().nonnegative().optional(),
  overwritten: z
    .array(z.string())
    .optional()
    .describe('Files changed outside Spine that the person confirmed to overwrite.'),
  conversation: z
    .string()
    .optional()
    .describe('The session forked at the checkpoint, when the conversation was rewound too.'),
});
/** Body of `workspace/restored`. */
export type WorkspaceRestoredBody = z.infer<typeof WorkspaceRestoredBodySchema>;

import type { JsonSchema, ToolDefinition, ToolOutput } from '@spine/protocol';
import { z } from 'zod';
import {
  appendFact,
  isLinked,
  MAX_FACT_CHARS,
  MAX_MEMORY_BYTES,
  type MemoryFile,
  type MemoryScope,
} from './memory-file.js';

/** The name of the memory tool. */
export const REMEMBER_TOOL = 'remember';

/** Arguments of the `remember` tool. */
export interface RememberToolArguments {
  /** One line, 1–500 characters. */
  fact: string;
  /** `project` (default) or `user`. */
  scope?: MemoryScope;
}

const RememberArguments = z.object({
  fact: z
    .string()
    .min(1)
    .max(MAX_FACT_CHARS)
    .regex(/^[^\r\n]*$/, 'one line')
    .describe(
      'One durable fact, one line: a preference, a convention, a lesson (how to run the tests, a pitfall).',
    ),
  scope: z
    .enum(['project', 'user'])
    .default('project')
    .describe(
      '"project" (default): this workspace\'s .spine/memory.md. "user": the person\'s own memory, for every project; they are asked first unless they chose never to be asked.',
    ),
});

// What the model sees: the input side, so `scope` (which has a default) is optional.
const { $schema: _dialect, ...REMEMBER_PARAMETERS } = z.toJSONSchema(RememberArguments, {
  io: 'input',
}) as JsonSchema;

/** Options of {@link createRememberTool}. */
export interface RememberToolOptions {
  /** The memory files by scope. */
  files: readonly MemoryFile[];
  /** The session writing the fact (recorded in its provenance comment). */
  sessionId: () => string;
  /** The clock for the provenance date (default: now). */
  now?: () => Date;
}

/**
 * Creates the `remember` tool: appends one fact, with the session that remembered it, to the
 * project or user memory file. It writes files, so it goes through the approval chain; it is
 * refused in the `read-only` sandbox. Results name the memory by scope and relative label, never
 * by absolute path, so a rerun elsewhere renders the same result. Any `ToolScheduler` runs it
 * (arguments are validated against its JSON Schema before `execute`).
 *
 * @example
 * ```ts
 * const files = memoryFiles(process.cwd(), { userFile: '/home/me/.config/spine/memory.md' });
 * const remember = createRememberTool({ files, sessionId: () => session.id });
 * ```
 */
export function createRememberTool(
  options: RememberToolOptions,
): ToolDefinition<RememberToolArguments> {
  const fileOf = (scope: MemoryScope | undefined): MemoryFile =>
    options.files.find((file) => file.scope === (scope ?? 'project')) ?? options.files[0]!;
  return {
    spec: {
      name: REMEMBER_TOOL,
      description:
        'Remember one fact for future sessions (not this one: the system prompt of this session does not change). Use it for what will still hold later: the user\'s preferences, project conventions, lessons learned. Never store secrets or task-specific details. scope "project" (default) is for this workspace; "user" is for every project, and the person is asked first unless they chose never to be asked.',
      parameters: REMEMBER_PARAMETERS,
    },
    permissions: { writesFiles: true },
    mutatedPaths: (args) => [fileOf(args.scope).path],
    execute: async (args, context): Promise<ToolOutput> => {
      const file = fileOf(args.scope);
      const meta = { scope: file.scope, memory: file.label };
      const fail = (content: string): ToolOutput => ({ content, isError: true, meta });
      if (context.sandbox === 'read-only')
        return fail(
          `Refused: the read-only sandbox allows no writes, so ${file.label} was not changed. Tell the user what you would remember instead.`,
        );
      const fact = args.fact.trim();
      if (!fact || /[\r\n]/.test(fact) || fact.includes('<!--') || fact.includes('-->'))
        return fail(
          'Refused: a fact is one non-empty line without HTML comment markers (<!-- -->). Rephrase it and call remember again.',
        );
      if (file.scope === 'project' && isLinked(file.path))
        return fail(
          `Refused: ${file.label} or its folder is a symbolic link, so writing it could leave the workspace. Ask the user to replace the link with a plain file.`,
        );
      let outcome: ReturnType<typeof appendFact>;
      try {
        outcome = appendFact(file, fact, {
          sessionId: options.sessionId(),
          date: (options.now?.() ?? new Date()).toISOString().slice(0, 10),
        });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'an I/O error';
        return fail(`Could not write ${file.label} (${code}); nothing was remembered.`);
      }
      if (outcome.status === 'full')
        return fail(
          `${file.label} is full (${outcome.bytes} bytes; the cap is ${MAX_MEMORY_BYTES}), so nothing was added. Ask the user to prune it (delete facts that no longer hold), then try again.`,
        );
      if (outcome.status === 'duplicate')
        return {
          content: `Already remembered in ${file.label}: "${fact}". Nothing was added.`,
          meta: { ...meta, status: 'duplicate' },
        };
      return {
        content: `Remembered in ${file.label}: "${fact}". It applies from the next session; this session's system prompt does not change.`,
        meta: { ...meta, status: 'added' },
      };
    },
  };
}

import { existsSync } from 'node:fs';
import type { ToolDefinition } from '@spine/protocol';
import type { LspDiagnostic, LspManager } from '../types.js';
import { countSeverities, LineReader, renderDiagnostics } from './format.js';
import { displayPath } from './paths.js';
import { maxArg, maxProperty, READ_ONLY_TOOL, runLspTool } from './tool-kit.js';

/** Renders one file's diagnostics: a summary line, then one entry per problem. */
export function describeFileDiagnostics(
  manager: LspManager,
  path: string,
  diagnostics: readonly LspDiagnostic[],
  max: number,
): { text: string; truncated: boolean } {
  const shown = displayPath(manager.cwd, path);
  if (diagnostics.length === 0) return { text: `No problems in ${shown}.`, truncated: false };
  const rendered = renderDiagnostics(manager.cwd, diagnostics, new LineReader(), max);
  const lines = [`${shown}: ${countSeverities(diagnostics)}`, ...rendered.lines];
  if (rendered.hidden > 0) lines.push(`(${rendered.hidden} more not shown)`);
  return { text: lines.join('\n'), truncated: rendered.hidden > 0 };
}

/** Drops hints (unused-variable style suggestions) unless asked for. */
export function withoutHints(
  diagnostics: readonly LspDiagnostic[],
  includeHints: boolean,
): LspDiagnostic[] {
  return includeHints
    ? [...diagnostics]
    : diagnostics.filter((diagnostic) => diagnostic.severity !== 'hint');
}

/** `lsp_diagnostics`: compiler errors and warnings of a file, or of the files changed this session. */
export function createDiagnosticsTool(manager: LspManager): ToolDefinition {
  return {
    spec: {
      name: 'lsp_diagnostics',
      description:
        'Compiler errors and warnings from the language server, for one file or (without `path`) for every file changed in this session, as on disk now. Waits for the server to settle.',
      parameters: {
        type: 'object',
        properties: {
          path: {
            type: 'string',
            description: 'File path relative to the workspace root; omit for the changed files.',
          },
          includeHints: {
            type: 'boolean',
            description: 'Also list hints such as unused variables (default false).',
          },
          max: maxProperty('Most diagnostics per file (default 50).'),
        },
        additionalProperties: false,
      },
    },
    ...READ_ONLY_TOOL,
    execute: (args, context) =>
      runLspTool(args, context, async () => {
        const includeHints = args.includeHints === true;
        const max = maxArg(args);
        let files: string[];
        let skipped: string[] = [];
        if (typeof args.path === 'string') {
          files = [manager.resolvePath(args.path)];
        } else {
          const changed = manager.changedFiles();
          if (changed.length === 0) {
            return {
              content: 'No files changed in this session yet; pass `path` to check a file.',
            };
          }
          const present = changed.filter((file) => existsSync(file));
          files = present.filter((file) => manager.serves(file));
          skipped = present.filter((file) => !manager.serves(file));
        }
        const sections: string[] = [];
        let truncated = false;
        let total = 0;
        // Files settle independently, so they are waited for together.
        const results = await Promise.all(
          files.map((file) => manager.diagnostics(file, { signal: context.signal })),
        );
        for (const [index, file] of files.entries()) {
          const diagnostics = withoutHints(results[index] ?? [], includeHints);
          total += diagnostics.length;
          const described = describeFileDiagnostics(manager, file, diagnostics, max);
          sections.push(described.text);
          truncated ||= described.truncated;
        }
        if (files.length > 1)
          sections.unshift(
            `${total} problem${total === 1 ? '' : 's'} in ${files.length} changed files:`,
          );
        if (skipped.length > 0) {
          sections.push(
            `(no language server for ${skipped.map((file) => displayPath(manager.cwd, file)).join(', ')})`,
          );
        }
        const provider = files[0] === undefined ? undefined : manager.serverFor(files[0]);
        return { content: sections.join('\n'), provider, truncated };
      }),
  };
}

import type { ToolDefinition } from '@spine/protocol';
import type { LspLocation, LspManager } from '../types.js';
import {
  LineReader,
  omissionNotes,
  renderLocations,
  selectLocations,
  where,
  wordAt,
} from './format.js';
import { locateTarget, type Target } from './locate.js';
import {
  coverageNote,
  maxArg,
  maxProperty,
  READ_ONLY_TOOL,
  runLspTool,
  TARGET_PROPERTIES,
  targetArgs,
} from './tool-kit.js';

type ListingWords = { one: string; many: string; noun: string };

function heading(manager: LspManager, target: Target, reader: LineReader): string {
  const name = wordAt(reader, target.path, target.position.line, target.position.column);
  const at = where(manager.cwd, {
    path: target.path,
    ...target.position,
    endLine: 0,
    endColumn: 0,
  });
  return name ? `\`${name}\` at ${at}` : at;
}

function listing(
  manager: LspManager,
  target: Target,
  locations: LspLocation[],
  max: number,
  words: ListingWords,
): { content: string; truncated: boolean } {
  const { noun } = words;
  const reader = new LineReader();
  const selection = selectLocations(manager.cwd, locations, (each) => each, max);
  const count = selection.shown.length + selection.hidden;
  const lines = [
    `${count} ${count === 1 ? words.one : words.many} ${heading(manager, target, reader)}:`,
  ];
  if (target.note) lines.push(target.note);
  lines.push(
    ...renderLocations(manager.cwd, selection.shown, reader),
    ...omissionNotes(selection, noun),
  );
  if (selection.shown.length === 0 && selection.outside === 0)
    lines.push(`(no ${noun} found; the position may not be on a symbol)`);
  return { content: lines.join('\n'), truncated: selection.hidden > 0 };
}

/** The shared `execute` of the two lookups: locate the target, ask the server, list what it found. */
function lookupExecutor(
  manager: LspManager,
  lookup: 'definition' | 'references',
  words: ListingWords,
): ToolDefinition['execute'] {
  return (args, context) =>
    runLspTool(args, context, async () => {
      const reader = new LineReader();
      const target = await locateTarget(manager, targetArgs(args), reader, context.signal);
      const locations = await manager[lookup](target.path, target.position, {
        signal: context.signal,
      });
      if (lookup === 'references') {
        // Uses compiled against the build output point at its declaration, not at the source.
        for (const twin of target.buildTwins ?? []) {
          locations.push(
            ...(await manager.references(twin.path, twin.position, { signal: context.signal })),
          );
        }
      }
      const provider = manager.serverFor(target.path);
      const listed = listing(manager, target, locations, maxArg(args), words);
      const note = lookup === 'references' ? coverageNote(manager, provider) : [];
      return {
        ...listed,
        content: [listed.content, ...note].join('\n'),
        provider,
      };
    });
}

/** `lsp_definition`: where a symbol is defined. */
export function createDefinitionTool(manager: LspManager): ToolDefinition {
  return {
    spec: {
      name: 'lsp_definition',
      description:
        'Go to definition through the language server (compiler-precise, unlike grep). Give path+line+column, path+line+symbol, or just a symbol name. Returns path:line:col with the code line.',
      parameters: {
        type: 'object',
        properties: { ...TARGET_PROPERTIES },
        additionalProperties: false,
      },
    },
    ...READ_ONLY_TOOL,
    execute: lookupExecutor(manager, 'definition', {
      one: 'definition of',
      many: 'definitions of',
      noun: 'definitions',
    }),
  };
}

/** `lsp_references`: every use of a symbol, declaration included. */
export function createReferencesTool(manager: LspManager): ToolDefinition {
  return {
    spec: {
      name: 'lsp_references',
      description:
        'Find all references to a symbol (including its declaration) through the language server. Give path+line+column, path+line+symbol, or a symbol name. Sorted path:line:col lines with code, capped at `max` (default 50).',
      parameters: {
        type: 'object',
        properties: {
          ...TARGET_PROPERTIES,
          max: maxProperty('Most results to list (default 50).'),
        },
        additionalProperties: false,
      },
    },
    ...READ_ONLY_TOOL,
    execute: lookupExecutor(manager, 'references', {
      one: 'reference to',
      many: 'references to',
      noun: 'references',
    }),
  };
}

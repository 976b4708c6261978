import type { ToolDefinition } from '@spine/protocol';
import type { LspCallHierarchy, LspLocation, LspManager } from '../types.js';
import { LineReader, omissionNotes, selectLocations, where } from './format.js';
import { locateTarget } from './locate.js';
import {
  coverageNote,
  maxArg,
  maxProperty,
  READ_ONLY_TOOL,
  runLspTool,
  TARGET_PROPERTIES,
  targetArgs,
} from './tool-kit.js';

type Direction = 'incoming' | 'outgoing' | 'both';

interface Row {
  location: LspLocation;
  text: string;
}

function renderHierarchy(
  manager: LspManager,
  hierarchy: LspCallHierarchy,
  direction: Direction,
  max: number,
): { lines: string[]; truncated: boolean } {
  const root = manager.cwd;
  const reader = new LineReader();
  const { item } = hierarchy;
  const lines = [
    `Call hierarchy of ${item.kind} \`${item.name}\` at ${where(root, item.location)}:`,
  ];
  let truncated = false;
  const section = (title: string, rows: Row[], noun: string): void => {
    const selection = selectLocations(root, rows, (row) => row.location, max);
    lines.push(`${title} (${selection.shown.length + selection.hidden}):`);
    for (const row of selection.shown) lines.push(`  ${where(root, row.location)}  ${row.text}`);
    for (const note of omissionNotes(selection, noun)) lines.push(`  ${note}`);
    truncated ||= selection.hidden > 0;
  };
  if (direction !== 'outgoing') {
    // One row per call site, in the caller's file.
    const rows = hierarchy.incoming.flatMap((call) =>
      call.callSites.map((site) => ({
        location: site,
        text: `in ${call.from.kind} \`${call.from.name}\`: ${reader.line(site.path, site.line)}`,
      })),
    );
    section('Incoming calls', rows, 'incoming calls');
  }
  if (direction !== 'incoming') {
    // One row per callee, at its declaration, with the lines that call it.
    const rows = hierarchy.outgoing.map((call) => {
      const sites = [...new Set(call.callSites.map((site) => `${site.line}:${site.column}`))];
      const container = call.to.detail ? ` (${call.to.detail})` : '';
      return {
        location: call.to.location,
        text: `${call.to.kind} \`${call.to.name}\`${container}, called at ${sites.join(', ')}: ${reader.line(call.to.location.path, call.to.location.line)}`,
      };
    });
    section('Outgoing calls', rows, 'outgoing calls');
  }
  return { lines, truncated };
}

/** `lsp_call_hierarchy`: who calls a function, and what it calls. */
export function createCallHierarchyTool(manager: LspManager): ToolDefinition {
  return {
    spec: {
      name: 'lsp_call_hierarchy',
      description:
        'Incoming calls (who calls this function or method) and outgoing calls (what it calls), from the language server. Give path+line+column, path+line+symbol, or a symbol name.',
      parameters: {
        type: 'object',
        properties: {
          ...TARGET_PROPERTIES,
          direction: {
            type: 'string',
            enum: ['incoming', 'outgoing', 'both'],
            description: 'Default both.',
          },
          max: maxProperty('Most calls to list per direction (default 50).'),
        },
        additionalProperties: false,
      },
    },
    ...READ_ONLY_TOOL,
    execute: (args, context) =>
      runLspTool(args, context, async () => {
        const direction: Direction =
          args.direction === 'incoming' || args.direction === 'outgoing' ? args.direction : 'both';
        const target = await locateTarget(
          manager,
          targetArgs(args),
          new LineReader(),
          context.signal,
        );
        const hierarchies = await manager.callHierarchy(target.path, target.position, {
          signal: context.signal,
        });
        const provider = manager.serverFor(target.path);
        if (hierarchies.length === 0) {
          const at = where(manager.cwd, {
            path: target.path,
            ...target.position,
            endLine: 0,
            endColumn: 0,
          });
          return {
            content: `No function or method at ${at}; point at a function, method or constructor name.`,
            provider,
          };
        }
        const lines = target.note ? [target.note] : [];
        let truncated = false;
        for (const hierarchy of hierarchies) {
          const rendered = renderHierarchy(manager, hierarchy, direction, maxArg(args));
          lines.push(...rendered.lines);
          truncated ||= rendered.truncated;
        }
        if (direction !== 'outgoing') lines.push(...coverageNote(manager, provider));
        return { content: lines.join('\n'), provider, truncated };
      }),
  };
}

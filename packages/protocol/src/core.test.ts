import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as core from './core.js';
import * as main from './index.js';

const here = dirname(fileURLToPath(import.meta.url));

/** Every module `file` imports at run time (relative ones followed), by specifier. */
function runtimeImports(file: string, seen = new Set<string>()): Set<string> {
  const found = new Set<string>();
  if (seen.has(file)) return found;
  seen.add(file);
  const source = readFileSync(join(here, file), 'utf8');
  // `import type` and `export type` lines vanish at build time; all others load their module.
  const pattern = /^(?:import|export)\s+(?!type\s)[^;]*?from\s+'([^']+)'/gms;
  for (const match of source.matchAll(pattern)) {
    const specifier = match[1]!;
    found.add(specifier);
    if (specifier.startsWith('./')) {
      for (const inner of runtimeImports(specifier.replace(/\.js$/, '.ts'), seen)) found.add(inner);
    }
  }
  return found;
}

describe('@spine/protocol/core', () => {
  it('loads no zod, directly or through the modules it re-exports', () => {
    const imports = runtimeImports('core.ts');
    expect(imports.size).toBeGreaterThan(5);
    expect([...imports].filter((specifier) => !specifier.startsWith('./'))).toEqual([]);
    // The main entry, by contrast, does load zod (the check above can see it).
    expect(runtimeImports('index.ts').has('zod')).toBe(true);
  });

  it('exports the same instances as the main entry, which has every core export', () => {
    const exported = new Map<string, unknown>(Object.entries(main));
    expect(Object.keys(core).length).toBeGreaterThan(15);
    for (const [name, value] of Object.entries(core)) expect(exported.get(name), name).toBe(value);
    // What core leaves out are the zod schemas and what is built from them.
    const left = Object.keys(main).filter((name) => !(name in core));
    expect(
      left.filter((name) => !/Schema$|^BUILTIN_EVENT_TYPES$|^bodyDefinitionName$/.test(name)),
    ).toEqual([]);
  });

  it('lists the built-in types with the surface roles of BUILTIN_EVENT_TYPES, in order', () => {
    expect(Object.entries(core.BUILTIN_EVENT_SURFACES)).toEqual(
      Object.entries(main.BUILTIN_EVENT_TYPES).map(([type, entry]) => [type, entry.surface]),
    );
  });

  it('closed string unions match the values their schemas accept', () => {
    const cases: [readonly string[], { safeParse(value: unknown): { success: boolean } }][] = [
      [core.TOOL_RESULT_OUTCOMES, main.ToolResultBodySchema.shape.outcome],
      [core.ATTEMPT_OUTCOMES, main.AttemptBodySchema.shape.outcome],
      [core.PREFIX_CHANGE_CAUSES, main.PrefixChangeCauseSchema],
      [core.TURN_END_REASONS, main.TurnEndReasonSchema],
    ];
    for (const [values, schema] of cases) {
      for (const value of values) expect(schema.safeParse(value).success, value).toBe(true);
      expect(schema.safeParse('no-such-value').success).toBe(false);
    }
  });
});

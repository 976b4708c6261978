// Type tests: `createToolRuntime` takes a readonly tool list, so it is a scheduler factory for the
// conformance kit as written (the kit passes `readonly AnyToolDefinition[]`; a mutable option
// type failed with TS4104). `tsc -b` checks this file; nothing here runs.
import type { AnyToolDefinition } from '@spine/protocol';
import { expectTypeOf } from 'vitest';
import { createToolRuntime, type ToolRuntimeOptions } from './runtime.js';
import { checkToolScheduler } from './testing/check.js';

expectTypeOf<readonly AnyToolDefinition[]>().toExtend<NonNullable<ToolRuntimeOptions['tools']>>();

export function checkSpinesRuntime(cwd: string): ReturnType<typeof checkToolScheduler> {
  return checkToolScheduler({ scheduler: (tools) => createToolRuntime({ cwd, tools }) });
}

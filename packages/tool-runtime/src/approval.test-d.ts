// Type tests: an approver can only answer 'once', 'always' or 'deny' without a cast (`tsc -b`
// checks this file). The runtime checks the answer again, for approvers written in JavaScript.
import type { ApprovalAnswer, ToolRunOptions } from '@spine/protocol';
import { expectTypeOf } from 'vitest';

type Approve = NonNullable<ToolRunOptions['approve']>;

expectTypeOf<ApprovalAnswer>().toEqualTypeOf<'once' | 'always' | 'deny'>();
export const allowsOnce: Approve = async () => 'once';
export const denies: Approve = async () => 'deny';
// @ts-expect-error undefined is not an answer
export const returnsUndefined: Approve = async () => undefined;
// @ts-expect-error a boolean is not an answer
export const returnsFalse: Approve = async () => false;
// @ts-expect-error 'no' is not an answer
export const returnsNo: Approve = async () => 'no';
// @ts-expect-error an object is not an answer
export const returnsObject: Approve = async () => ({ decision: 'allow' });

// The scripted model replies of the bundled example: a real multi-step coding task (run the
// tests, read the code, fix it, run the tests again), answered by the loopback model server.
// Used by scripts/record-example.ts and by the end-to-end tests.
import type { ScriptedReply } from '@spine/test-utils';

/** Id of the recorded example session in `examples/sessions/`. */
export const EXAMPLE_SESSION_ID = 'example-fix-add';

/** The task the person typed. */
export const EXAMPLE_TASK =
  'The tests in this project fail. Find the bug and fix it, then make sure the tests pass.';

/** What the scripted model answers, request by request. */
export const EXAMPLE_REPLIES: ScriptedReply[] = [
  {
    reasoning: 'Start by running the tests to see what fails.',
    text: 'Let me run the tests first.',
    toolCalls: [{ id: 'call_1', name: 'bash', arguments: '{"command":"node test.js"}' }],
  },
  {
    reasoning: 'add(1, 2) gives -1: the function subtracts. Read it.',
    toolCalls: [{ id: 'call_2', name: 'read', arguments: '{"path":"src/add.js"}' }],
  },
  {
    text: '`add` subtracts instead of adding. Fixing it.',
    toolCalls: [
      {
        id: 'call_3',
        name: 'edit',
        arguments:
          '{"path":"src/add.js","edits":[{"oldText":"return a - b;","newText":"return a + b;"}]}',
      },
    ],
  },
  {
    toolCalls: [{ id: 'call_4', name: 'bash', arguments: '{"command":"node test.js"}' }],
  },
  {
    text: 'Fixed: `add` in src/add.js returned `a - b`; it now returns `a + b`. All 3 tests pass.',
  },
];

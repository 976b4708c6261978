import type { ApprovalAnswer, ApprovalRequest } from '@spine/protocol';
import { visibleText } from '@spine/protocol';

/** Sends one `elicitation/create` request to the client and resolves with its answer. */
export type ElicitationSender = (
  params: {
    mode: 'form';
    message: string;
    requestedSchema: {
      type: 'object';
      properties: { [key: string]: { type: 'boolean'; title: string; description: string } };
    };
  },
  options: { signal?: AbortSignal },
) => Promise<{ action: 'accept' | 'decline' | 'cancel'; content?: { [key: string]: unknown } }>;

/** The question a person sees for one call, with every character from outside made visible. */
export function approvalMessage(request: ApprovalRequest): string {
  const args = JSON.stringify(request.args);
  const shown = args.length > 2000 ? `${args.slice(0, 2000)}… (${args.length} characters)` : args;
  const lines = [
    `Spine asks before running ${visibleText(request.toolName)}: ${visibleText(request.reason)}.`,
    `Arguments: ${visibleText(shown)}`,
  ];
  if (request.escalation)
    lines.push(
      `It asks for more sandbox permissions: ${visibleText(request.escalation.justification)}`,
    );
  lines.push('Accept to run it once; decline to refuse it.');
  return lines.join('\n');
}

/**
 * An approver that puts Spine's question to the person behind the MCP client through elicitation:
 * accept runs the call (once, or for the rest of the server run when `always` is ticked), decline
 * and cancel deny it. A failed or unanswerable request denies it as well (the runtime says why).
 */
export function elicitationApprover(
  send: ElicitationSender,
): (request: ApprovalRequest, options: { signal?: AbortSignal }) => Promise<ApprovalAnswer> {
  return async (request, options) => {
    const answer = await send(
      {
        mode: 'form',
        message: approvalMessage(request),
        requestedSchema: {
          type: 'object',
          properties: {
            always: {
              type: 'boolean',
              title: 'Always',
              description: `Allow ${request.toolName} calls like this one until the server stops`,
            },
          },
        },
      },
      options,
    );
    if (answer.action === 'accept') return answer.content?.always === true ? 'always' : 'once';
    if (answer.action === 'decline') return 'deny';
    // The runtime records a thrown approver as "approval failed: <message>".
    throw new Error('the person cancelled the approval request in the MCP client');
  };
}

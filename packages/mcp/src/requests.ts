import type {
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * Answers a server's `elicitation/create` request (a person fills the requested form). Called
 * only for servers whose configuration says `elicitation: true`; without a handler those requests
 * are refused with an error the server reports.
 */
export type McpElicitationHandler = (request: {
  server: string;
  params: ElicitRequest['params'];
  signal: AbortSignal;
}) => Promise<ElicitResult>;

/**
 * Answers a server's `sampling/createMessage` request (through the session's model, recorded by
 * the application). Called only for servers whose configuration says `sampling: true`; without a
 * handler those requests are refused with an error the server reports.
 */
export type McpSamplingHandler = (request: {
  server: string;
  params: CreateMessageRequest['params'];
  signal: AbortSignal;
}) => Promise<CreateMessageResult>;

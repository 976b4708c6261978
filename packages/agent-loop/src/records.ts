// Bodies of the events the agent loop writes. Their schemas and types live in @spine/protocol
// (the log format is the spec); they are re-exported here for existing importers.

export type {
  AbortedBody,
  AttemptBody,
  InboxItem,
  InboxQueue,
  InboxSplicedBody,
  PrefixChangeCause,
  PrefixComparison,
  PromptSystemBody,
  RecordedSeqs,
  RequestContextBody,
  RequestHeaderBody,
  RetryBody,
  RetryStartedBody,
  ToolsDefinedBody,
  TurnEndBody,
  TurnEndReason,
  TurnError,
} from '@spine/protocol';

/**
 * Terminal presentation for Spine sessions: what a harness that shows a Spine agent on a terminal
 * prints. Styles that switch themselves off off a terminal, an agent's live output, transcripts of
 * a recorded session (whole or streamed event by event), the approval and MCP elicitation prompts.
 * Everything a model, a tool or a server supplied is made terminal-safe before it is printed.
 *
 * @packageDocumentation
 */

export {
  APPROVAL_DIFF_LINES,
  type ApprovalDetail,
  type ApprovalPromptOptions,
  approvalDiffFull,
  approvalQuestion,
  createLineApprover,
  type LineApprover,
  parseApprovalAnswer,
} from './approval.js';
export {
  type ApprovalKey,
  approvalKey,
  createKeyApprover,
  type KeyApproverOptions,
  type RawInput,
} from './approval-keys.js';
export {
  type DiffPreview,
  moreLinesNote,
  type RenderDiffOptions,
  type RenderedDiff,
  renderDiff,
} from './diff/render.js';
export {
  describeElicitation,
  type ElicitationRequest,
  type ElicitationResult,
  parseElicitationAnswer,
} from './elicitation.js';
export { attachLiveOutput, type LiveOptions, type LiveStreams } from './live.js';
export { formatCount, OutputTail, outputLine, outputText } from './live-text.js';
export { type CodeHighlighter, loadCodeHighlighter } from './markdown/highlight.js';
export { markdownPreview, PREVIEW_ROWS } from './markdown/preview.js';
export { type MarkdownOptions, renderMarkdown } from './markdown/render.js';
export { createMarkdownStream, type MarkdownStream } from './markdown/stream.js';
export { displayWidth } from './markdown/width.js';
export { wrapRows } from './markdown/wrap.js';
export {
  type ChunkSink,
  type ChunkWriter,
  createChunkWriter,
  DEFAULT_CHUNK_CHARS,
  fileSink,
  streamSink,
  writeJsonArray,
} from './output.js';
export { Pager, type PagerOptions, type PagerState } from './pager.js';
export {
  type Background,
  type CodePalette,
  type CodeTokenKind,
  type ColorLevel,
  codePalette,
  colorLevel,
  terminalBackground,
} from './palette.js';
export { SubagentPanel, type SubagentPanelOptions } from './panel.js';
export {
  type StreamedPass,
  writeEventLines,
  writeEventsNdjson,
  writeTranscript,
} from './session-stream.js';
export {
  contextReport,
  contextTokens,
  fitFigures,
  formatTokens,
  lastRequestUsage,
  statusLine,
} from './status.js';
export { formatBytes, formatCost, type Style, styleFor } from './style.js';
export {
  TerminalTitle,
  type TitleOutput,
  terminalTitleEnabled,
  WINDOW_TITLE_MAX,
  windowTitle,
} from './terminal-title.js';
export {
  renderTranscript,
  type TranscriptOptions,
  totalUsage,
  transcriptFooter,
  transcriptLines,
} from './transcript.js';
export { describeTurnEnd } from './turn-end.js';

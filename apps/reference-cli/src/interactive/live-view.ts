import { type AgentSession, childMonitorFor } from '@spine/harness';
import { attachLiveOutput, type CodeHighlighter, type Style, SubagentPanel } from '@spine/tui';

/** What {@link attachLiveView} needs: the terminal, its style and the REPL's settings. */
export interface LiveViewOptions {
  readonly out: NodeJS.WriteStream;
  readonly style: Style;
  /** Highlights fenced code (highlight.js, when installed). */
  readonly highlight: CodeHighlighter | undefined;
  /** Whether reasoning is shown (dimmed) or collapsed, asked at each event. */
  readonly showReasoning: () => boolean;
  /** Called after the live region was drawn (the REPL shows a half-typed line again). */
  readonly afterDraw: () => void;
}

/**
 * The REPL's view of a session: the live region (@spine/tui's SubagentPanel) under the output,
 * through which all output passes, and the agent's live events written into it. On a terminal
 * Markdown is rendered block by block with the unfinished block previewed in the live region, and
 * a running tool's last output lines are there too, all redrawn in place. Returns the panel and
 * the function that detaches the events.
 */
export function attachLiveView(
  active: AgentSession,
  options: LiveViewOptions,
): { panel: SubagentPanel; detach: () => void } {
  const { out, style, highlight } = options;
  const panel = new SubagentPanel(out, style, childMonitorFor(active.session), {
    tty: Boolean(out.isTTY),
    // The present width (an ioctl), not the one of the last resize signal: a draw between a
    // terminal's reflow and its signal would count rows at the old width.
    columns: () => presentColumns(out),
    session: active.session,
    afterDraw: options.afterDraw,
    // The streamed block is previewed as it will look once finished.
    markdown: { hyperlinks: true, ...(highlight ? { highlight } : {}) },
  });
  const detach = attachLiveOutput(
    active.agent,
    { text: panel.stream(), notices: panel.stream() },
    style,
    {
      showReasoning: options.showReasoning,
      // The panel shows subagents' progress, one live line per child.
      childProgress: false,
      ...(out.isTTY
        ? {
            liveTail: (id: string, lines?: readonly string[]) => panel.setLive(id, lines),
            markdown: {
              width: () => out.columns || 80,
              hyperlinks: true,
              ...(highlight ? { highlight } : {}),
            },
            pending: (text: string) => panel.preview(text),
          }
        : {}),
    },
  );
  return { panel, detach };
}

/** The terminal's width now (asked of the terminal; `out.columns` changes only on SIGWINCH). */
function presentColumns(out: NodeJS.WriteStream): number {
  try {
    return out.getWindowSize?.()[0] || out.columns || 80;
  } catch {
    return out.columns || 80;
  }
}

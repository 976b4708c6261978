import type {
  AssistantMessage,
  AssistantPart,
  ModelStreamEvent,
  ToolCallPart,
} from '@spine/protocol';

/**
 * Accumulates deltas into one assistant message, keeping parts in the order the model produced
 * them (reasoning, text and tool calls may interleave), and emits the matching stream events.
 */
export class MessageBuilder {
  private readonly parts: AssistantPart[] = [];
  private openKind: 'text' | 'reasoning' | undefined;
  private openChunks: string[] = [];
  private readonly calls: { part: ToolCallPart; chunks: string[] }[] = [];
  private readonly ids = new Set<string>();

  /** `idPrefix` starts the ids assigned to tool calls whose id is missing, empty or repeated. */
  constructor(private readonly idPrefix = 'call') {}

  /** Number of tool calls started so far. */
  get toolCallCount(): number {
    return this.calls.length;
  }

  /** Adds text or reasoning; pushes the delta event into `out`. */
  appendText(kind: 'text' | 'reasoning', text: string, out: ModelStreamEvent[]): void {
    if (text.length === 0) return;
    if (this.openKind !== kind) this.flush();
    this.openKind = kind;
    this.openChunks.push(text);
    out.push(kind === 'text' ? { type: 'text-delta', text } : { type: 'reasoning-delta', text });
  }

  /** Attaches an Anthropic signature (or redacted data) to the reasoning part being built. */
  closeReasoning(extra: { signature?: string; redactedData?: string }): void {
    if (this.openKind !== 'reasoning') {
      this.flush();
      this.openKind = 'reasoning';
    }
    const index = this.flush();
    const part = index === undefined ? undefined : this.parts[index];
    if (part?.type === 'reasoning') Object.assign(part, extra);
  }

  /**
   * Starts tool call number `toolCallCount`; returns its ordinal. An id that is missing, empty
   * or already used in this response is replaced by `<idPrefix>_<ordinal>` (unique in the
   * response) and the provider's original is kept as `providerId` (`''` for none).
   */
  startToolCall(id: string | undefined, name: string, out: ModelStreamEvent[]): number {
    this.flush();
    const index = this.calls.length;
    const original = id ?? '';
    let assigned = original;
    if (original === '' || this.ids.has(original)) {
      assigned = `${this.idPrefix}_${index}`;
      for (let n = 2; this.ids.has(assigned); n++) assigned = `${this.idPrefix}_${index}_${n}`;
    }
    this.ids.add(assigned);
    const part: ToolCallPart = { type: 'tool-call', id: assigned, name, arguments: '' };
    if (assigned !== original) part.providerId = original;
    this.parts.push(part);
    this.calls.push({ part, chunks: [] });
    out.push({ type: 'tool-call-start', index, id: assigned, name });
    return index;
  }

  /** Sets the name of a tool call whose name arrived after its first fragment. */
  nameToolCall(index: number, name: string): void {
    const call = this.calls[index];
    if (call && call.part.name === '') call.part.name = name;
  }

  /** Appends an arguments fragment to tool call `index`. */
  appendArguments(index: number, text: string, out: ModelStreamEvent[]): void {
    const call = this.calls[index];
    if (!call || text.length === 0) return;
    call.chunks.push(text);
    out.push({ type: 'tool-call-delta', index, argumentsDelta: text });
  }

  /** Replaces the arguments of tool call `index` (non-streaming bodies, Anthropic's `{}` default). */
  setArguments(index: number, text: string): void {
    const call = this.calls[index];
    if (call) call.chunks = [text];
  }

  /** Arguments received so far for tool call `index`. */
  argumentsOf(index: number): string {
    return this.calls[index]?.chunks.join('') ?? '';
  }

  /** The finished message. */
  build(): AssistantMessage {
    this.flush();
    for (const call of this.calls) call.part.arguments = call.chunks.join('');
    return { role: 'assistant', content: this.parts };
  }

  private flush(): number | undefined {
    if (this.openKind === undefined) return undefined;
    const text = this.openChunks.join('');
    this.parts.push(
      this.openKind === 'text' ? { type: 'text', text } : { type: 'reasoning', text },
    );
    this.openKind = undefined;
    this.openChunks = [];
    return this.parts.length - 1;
  }
}

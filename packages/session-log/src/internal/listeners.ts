import type { SessionEvent, SessionListener } from '@spine/protocol';

/**
 * The live listeners of one session. A listener that throws is reported as a process warning
 * and never reaches the appender, whose event is already committed. The list is replaced, not
 * changed, when a listener is added or removed, so `emit` walks it without copying (a listener
 * that unsubscribes during an emit still sees that event, as with a copied list).
 */
export class SessionListeners {
  private list: readonly SessionListener[] = [];

  /** Adds `listener`; returns a function that removes it. */
  add(listener: SessionListener): () => void {
    // A wrapper per subscription, so the same function subscribed twice is removed once at a time.
    const entry: SessionListener = (event) => listener(event);
    this.list = [...this.list, entry];
    return () => {
      this.list = this.list.filter((item) => item !== entry);
    };
  }

  /** Calls every listener with `event`. */
  emit(event: SessionEvent): void {
    const list = this.list;
    for (let i = 0; i < list.length; i++) {
      try {
        (list[i] as SessionListener)(event);
      } catch (error) {
        process.emitWarning(`a session listener threw: ${String(error)}`, 'SpineSessionListener');
      }
    }
  }

  /** Removes every listener. */
  clear(): void {
    this.list = [];
  }
}

import type { SessionEvent, SessionListener } from '@spine/protocol';
import { EventEmitter } from 'eventemitter3';

/**
 * The live listeners of one session. A listener that throws is reported as a process warning
 * and never reaches the appender, whose event is already committed.
 */
export class SessionListeners {
  private readonly emitter = new EventEmitter();

  /** Adds `listener`; returns a function that removes it. */
  add(listener: SessionListener): () => void {
    this.emitter.on('event', listener);
    return () => {
      this.emitter.off('event', listener);
    };
  }

  /** Calls every listener with `event`. */
  emit(event: SessionEvent): void {
    if (this.emitter.listenerCount('event') === 0) return;
    for (const listener of this.emitter.listeners('event')) {
      try {
        (listener as SessionListener)(event);
      } catch (error) {
        process.emitWarning(`a session listener threw: ${String(error)}`, 'SpineSessionListener');
      }
    }
  }

  /** Removes every listener. */
  clear(): void {
    this.emitter.removeAllListeners();
  }
}

// A shared registry of arrays whose producer promises that they only ever grow at the end.
//
// Encoders that cache the serialised form of a list (the model clients) must otherwise compare
// every item of a list with the previous one to know that only new items were appended: on a
// cold step that scan costs more than encoding the new items. An array marked here tells them
// that its earlier items never change, so the items they saw last time are still in place.
// Session-log marks the message arrays `deriveMessages()` returns (a replace starts new ones).

const appendOnly = new WeakSet<readonly unknown[]>();

/**
 * Marks `array` as append-only: its producer promises never to change, remove or reorder an
 * item once it is in the array, only to push new ones at the end. Returns `array`.
 *
 * @example
 * ```ts
 * const messages = markAppendOnly<Message>([]);
 * messages.push(next); // allowed; messages[0] = other would break the promise
 * ```
 */
export function markAppendOnly<T>(array: T[]): T[] {
  appendOnly.add(array);
  return array;
}

/**
 * True when `array` was marked with {@link markAppendOnly}: the items a reader saw in it
 * before are still at the same positions.
 */
export function isAppendOnly(array: readonly unknown[]): boolean {
  return appendOnly.has(array);
}

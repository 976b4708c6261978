/**
 * The first `max` UTF-16 units of `text`, one fewer when the cut would split a surrogate pair;
 * a lone high surrogate at the end is dropped too (the model never gets half a character).
 */
export function cutAtCodePoint(text: string, max: number): string {
  let end = Math.max(0, Math.min(max, text.length));
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return end === text.length ? text : text.slice(0, end);
}

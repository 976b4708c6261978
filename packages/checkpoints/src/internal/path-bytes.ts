// File names as git and the file system hold them: bytes. A name that is valid UTF-8 becomes its
// ordinary string; each byte that is not part of a valid UTF-8 sequence becomes a lone low
// surrogate U+DC80…U+DCFF (as Python's "surrogateescape" does), which valid UTF-8 never yields,
// so decodePath and encodePath are exact inverses and a non-UTF-8 name comes back identical.

const ESCAPE_BASE = 0xdc00;

/** Length of the valid UTF-8 sequence starting at `index`, or 0 when it is not one. */
function sequenceLength(bytes: Buffer, index: number): number {
  const lead = bytes[index] as number;
  if (lead < 0x80) return 1;
  let length: number;
  let min: number;
  if (lead >= 0xc2 && lead <= 0xdf) [length, min] = [2, 0x80];
  else if (lead >= 0xe0 && lead <= 0xef) [length, min] = [3, 0x800];
  else if (lead >= 0xf0 && lead <= 0xf4) [length, min] = [4, 0x10000];
  else return 0;
  if (index + length > bytes.length) return 0;
  let code = lead & (0xff >> (length + 1));
  for (let offset = 1; offset < length; offset += 1) {
    const next = bytes[index + offset] as number;
    if ((next & 0xc0) !== 0x80) return 0;
    code = (code << 6) | (next & 0x3f);
  }
  if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return length;
}

/** The string form of a file name's bytes (exact: {@link encodePath} gives the bytes back). */
export function decodePath(bytes: Buffer): string {
  let text = '';
  let start = 0;
  let index = 0;
  while (index < bytes.length) {
    const length = sequenceLength(bytes, index);
    if (length > 0) {
      index += length;
      continue;
    }
    text += bytes.toString('utf8', start, index);
    text += String.fromCharCode(ESCAPE_BASE + (bytes[index] as number));
    index += 1;
    start = index;
  }
  return text + bytes.toString('utf8', start, index);
}

/** The bytes of a name made by {@link decodePath} (any other string: its UTF-8). */
export function encodePath(path: string): Buffer {
  const parts: Buffer[] = [];
  let start = 0;
  for (let index = 0; index < path.length; index += 1) {
    const code = path.charCodeAt(index);
    const previous = index > 0 ? path.charCodeAt(index - 1) : 0;
    const escaped = code >= 0xdc80 && code <= 0xdcff && !(previous >= 0xd800 && previous <= 0xdbff);
    if (!escaped) continue;
    parts.push(Buffer.from(path.slice(start, index), 'utf8'), Buffer.of(code - ESCAPE_BASE));
    start = index + 1;
  }
  if (parts.length === 0) return Buffer.from(path, 'utf8');
  parts.push(Buffer.from(path.slice(start), 'utf8'));
  return Buffer.concat(parts);
}

/** The absolute name of workspace-relative `path` under `root`, as bytes for `fs` calls. */
export function pathUnder(root: string, path: string): Buffer {
  return Buffer.concat([Buffer.from(`${root}/`, 'utf8'), encodePath(path)]);
}

/** Splits NUL-separated git output into names (exact bytes decoded; trailing field dropped). */
export function splitNulPaths(buffer: Buffer): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let end = buffer.indexOf(0, start); end >= 0; end = buffer.indexOf(0, start)) {
    parts.push(decodePath(buffer.subarray(start, end)));
    start = end + 1;
  }
  if (start < buffer.length) parts.push(decodePath(buffer.subarray(start)));
  return parts;
}

/** NUL-terminated bytes of `paths`, for git's `--pathspec-file-nul` / `-z` stdin. */
export function nulInput(paths: readonly string[]): Buffer {
  return Buffer.concat(paths.flatMap((path) => [encodePath(path), Buffer.of(0)]));
}

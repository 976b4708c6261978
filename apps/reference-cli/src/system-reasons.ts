// The one table of what the operating system's error codes mean for a person, for every place
// the CLI words one: an error that ended a command, a file `spine sessions` cannot list, a log
// `spine serve` cannot read.

/** What the operating system's error codes mean for a person. */
const SYSTEM_REASONS: { readonly [code: string]: string } = {
  ENOENT: 'it does not exist',
  EACCES: 'permission denied',
  EPERM: 'the operation is not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exceeded',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  EEXIST: 'it already exists',
  ELOOP: 'too many symbolic links',
  EMFILE: 'too many open files',
  EADDRINUSE: 'the address is already in use',
  EADDRNOTAVAIL: 'the address is not available on this machine',
  EIO: 'an input/output error (a terminal that went away, or a failing disk)',
};

/**
 * What error code `code` (`EACCES`) means, as a short phrase without the code ("permission
 * denied"); a code the table does not know is "the operating system refused".
 */
export function systemReason(code: string): string {
  return Object.hasOwn(SYSTEM_REASONS, code)
    ? (SYSTEM_REASONS[code] as string)
    : 'the operating system refused';
}

import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Finds an executable: an absolute path is checked, a bare name is looked up on `pathVariable`. */
export function findCommand(command: string, pathVariable: string | undefined): string | undefined {
  if (isAbsolute(command) || command.includes('/')) {
    return isExecutableFile(command) ? command : undefined;
  }
  for (const directory of (pathVariable ?? '').split(delimiter)) {
    if (directory === '') continue;
    const candidate = join(directory, command);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

import { existsSync, readFileSync } from 'node:fs';
import { InvalidConfigError } from './errors.js';

/**
 * The parsed JSON of a configuration file, or undefined when there is none.
 *
 * @throws an {@link InvalidConfigError} naming the file when it is not JSON.
 */
export function readJsonFile(path: string): unknown {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new InvalidConfigError({
      source: path,
      key: '',
      expected: `is not valid JSON (${(error as Error).message})`,
      cause: error,
    });
  }
}

import { isSecretKey } from '../mcp/config-files.js';
import { forEachLeaf, type LoadedConfig } from './load.js';

/**
 * Renders every effective value with the layer and origin that set it, one per line:
 * `maxSteps = 12    [flag: --max-steps]`.
 */
export function formatEffectiveConfig(loaded: LoadedConfig): string {
  const rows: [string, string, string][] = [];
  forEachLeaf(loaded.config, '', (key, value) => {
    const source = loaded.provenance.get(key) ?? { layer: 'default', origin: 'built-in' };
    const shown = isSecretKey(key) ? '"***"' : JSON.stringify(value);
    rows.push([key, shown, `[${source.layer}: ${source.origin}]`]);
  });
  const width = Math.max(...rows.map(([key, value]) => key.length + value.length + 3));
  const lines = rows.map(
    ([key, value, source]) => `${`${key} = ${value}`.padEnd(width)}  ${source}`,
  );
  lines.push('', `user file:    ${loaded.files.user}`, `project file: ${loaded.files.project}`);
  return `${lines.join('\n')}\n`;
}

/** The effective configuration as JSON: `{ key: { value, layer, origin } }`. */
export function effectiveConfigJson(loaded: LoadedConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  forEachLeaf(loaded.config, '', (key, value) => {
    out[key] = {
      value: isSecretKey(key) ? '***' : value,
      ...(loaded.provenance.get(key) ?? { layer: 'default', origin: 'built-in' }),
    };
  });
  return out;
}

import { connectionOf } from '@spine/harness';
import { describeConnection, migratePostgresStore } from '@spine/store-postgres';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { EXIT_CODES } from '../exit-codes.js';
import { requireStoreUrl } from './store-url.js';

/** `spine store migrate --store <url>`: applies the schema migrations the database lacks. */
export async function storeMigrateCommand(flags: AgentFlags): Promise<number> {
  const { config } = configForFlags(flags).loaded;
  const connection = connectionOf(requireStoreUrl(config, 'store migrate'));
  const result = await migratePostgresStore(connection);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return EXIT_CODES.ok;
  }
  const where = `${describeConnection(connection.connectionString)} schema ${result.schema}`;
  if (result.applied.length === 0) {
    process.stdout.write(`${where} is current (version ${result.to})\n`);
  } else {
    for (const step of result.applied) {
      process.stdout.write(`applied ${step.version}: ${step.description}\n`);
    }
    process.stdout.write(`${where}: version ${result.from} → ${result.to}\n`);
  }
  return EXIT_CODES.ok;
}

// A small but real LSP server over stdio (vscode-jsonrpc) whose misbehaviour is chosen by flags:
//   --log=<file>            append every received method (and answers to its own requests) as JSON lines
//   --crash-on=<method>     exit(7) when <method> arrives, once: only if --once-file does not exist yet
//   --once-file=<file>      marker created before crashing, so the restarted server behaves
//   --hang-on=<method>      never answer <method> (until cancelled: then answer RequestCancelled)
// It answers textDocument/definition with line 0, character 0 of the queried document, and
// after `initialized` it asks the client for workspace/configuration and workDoneProgress/create.
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import {
  createMessageConnection,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';

const flags = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, ...rest] = arg.replace(/^--/, '').split('=');
    return [key, rest.join('=')];
  }),
);
const log = (entry) => {
  if (flags.log) appendFileSync(flags.log, `${JSON.stringify(entry)}\n`);
};
const connection = createMessageConnection(
  new StreamMessageReader(process.stdin),
  new StreamMessageWriter(process.stdout),
);

function maybeCrash(method) {
  if (flags['crash-on'] !== method) return;
  if (flags['once-file'] && existsSync(flags['once-file'])) return;
  if (flags['once-file']) writeFileSync(flags['once-file'], 'crashed');
  process.stderr.write(`crashing on ${method}\n`);
  process.exit(7);
}

connection.onRequest((method, params, token) => {
  log({ method });
  maybeCrash(method);
  if (method === 'initialize') {
    return {
      capabilities: { textDocumentSync: 1, definitionProvider: true, referencesProvider: true },
    };
  }
  if (method === 'shutdown') return null;
  if (flags['hang-on'] === method) {
    return new Promise((_resolve, reject) => {
      token.onCancellationRequested(() => {
        log({ method: 'cancelled', of: method });
        reject(new ResponseError(-32800, 'cancelled'));
      });
    });
  }
  if (method === 'textDocument/definition' || method === 'textDocument/references') {
    const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } };
    return [{ uri: params.textDocument.uri, range }];
  }
  return null;
});

connection.onNotification((method, params) => {
  log({ method, version: params?.textDocument?.version, id: params?.id });
  maybeCrash(method);
  if (method === 'initialized') {
    Promise.all([
      connection.sendRequest('workspace/configuration', {
        items: [{ section: 'fake' }, { section: 'other' }],
      }),
      connection.sendRequest('window/workDoneProgress/create', { token: 'load' }),
    ]).then(([configuration, progress]) => log({ answered: { configuration, progress } }));
  }
  if (method === 'exit') process.exit(0);
});

connection.listen();

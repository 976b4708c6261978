// A small but real LSP server over stdio (vscode-jsonrpc) whose misbehaviour is chosen by flags:
//   --log=<file>            append every received method (and answers to its own requests) as JSON lines
//   --crash-on=<method>     exit(7) when <method> arrives, once: only if --once-file does not exist yet
//   --once-file=<file>      marker created before crashing, so the restarted server behaves
//   --hang-on=<method>      never answer <method> (until cancelled: then answer RequestCancelled)
//   --pull-diagnostics      advertise diagnosticProvider and answer textDocument/diagnostic
//   --push-diagnostics      after didOpen/didChange publish [] at once, then the real list 120 ms later
//   --symbols               answer workspace/symbol with one class in the first opened document
//   --error-on=<method>     answer <method> with an error whose message carries a stack trace
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
const problem = {
  range: { start: { line: 1, character: 0 }, end: { line: 1, character: 4 } },
  severity: 1,
  code: 'F1',
  source: 'fake',
  message: 'fake problem',
};
let firstUri;
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
  if (flags['hang-on'] === method) {
    return new Promise((_resolve, reject) => {
      token.onCancellationRequested(() => {
        log({ method: 'cancelled', of: method });
        reject(new ResponseError(-32800, 'cancelled'));
      });
    });
  }
  if (method === 'initialize') {
    const capabilities = {
      textDocumentSync: 1,
      definitionProvider: true,
      referencesProvider: true,
    };
    if (flags['pull-diagnostics'] !== undefined) {
      capabilities.diagnosticProvider = {
        interFileDependencies: false,
        workspaceDiagnostics: false,
      };
    }
    return { capabilities };
  }
  if (method === 'textDocument/diagnostic') return { kind: 'full', items: [problem] };
  if (method === 'workspace/symbol' && flags.symbols !== undefined && firstUri) {
    const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 5 } };
    return [{ name: 'alpha', kind: 5, location: { uri: firstUri, range } }];
  }
  if (method === 'shutdown') return null;
  if (flags['error-on'] === method) {
    throw new ResponseError(
      -32603,
      'Debug Failure. False expression: position out of range\n    at Object.assert (/srv/tsserver.js:9:1)\n    at getTokenAtPosition (/srv/tsserver.js:120:5)',
    );
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
  if (method === 'textDocument/didOpen') firstUri ??= params.textDocument.uri;
  const synced = method === 'textDocument/didOpen' || method === 'textDocument/didChange';
  if (synced && flags['push-diagnostics'] !== undefined) {
    const uri = params.textDocument.uri;
    connection.sendNotification('textDocument/publishDiagnostics', { uri, diagnostics: [] });
    setTimeout(
      () =>
        connection.sendNotification('textDocument/publishDiagnostics', {
          uri,
          diagnostics: [problem],
        }),
      120,
    );
  }
});

connection.listen();

import { pathToFileURL } from 'node:url';
import type { ClientCapabilities } from 'vscode-languageserver-protocol/node';

/**
 * What this client really does: full-text document sync from disk, read-only navigation
 * queries, pushed and pulled diagnostics. No edits, completions or UI features are claimed.
 */
export const CLIENT_CAPABILITIES: ClientCapabilities = {
  general: { positionEncodings: ['utf-16'] },
  workspace: {
    applyEdit: false,
    configuration: true,
    workspaceFolders: true,
    symbol: { dynamicRegistration: false },
    didChangeWatchedFiles: { dynamicRegistration: true, relativePatternSupport: false },
  },
  textDocument: {
    synchronization: { dynamicRegistration: false, didSave: false, willSave: false },
    definition: { dynamicRegistration: false, linkSupport: true },
    references: { dynamicRegistration: false },
    documentSymbol: { dynamicRegistration: false, hierarchicalDocumentSymbolSupport: true },
    callHierarchy: { dynamicRegistration: false },
    publishDiagnostics: { relatedInformation: false, versionSupport: false },
    diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false },
  },
  window: { workDoneProgress: true },
};

/** Answers the requests a server sends to its client; unknown ones get `null`. */
export function answerServerRequest(method: string, params: unknown, cwd: string): unknown {
  switch (method) {
    case 'workspace/configuration': {
      const items = (params as { items?: unknown[] } | undefined)?.items ?? [];
      return items.map(() => ({}));
    }
    case 'workspace/workspaceFolders':
      return [{ uri: pathToFileURL(cwd).href, name: 'workspace' }];
    case 'workspace/applyEdit':
      return { applied: false, failureReason: 'spine lsp-tools is read-only' };
    default:
      // client/registerCapability, window/workDoneProgress/create, window/showMessageRequest …
      return null;
  }
}

import { SpineError } from '@spine/protocol';

/** Thrown when MCP server configuration is malformed (a `.mcp.json` entry, an `mcp` config key). */
export class McpConfigError extends SpineError {
  /** The server whose entry is wrong, when one is. */
  readonly server: string | undefined;

  constructor(options: { reason: string; server?: string; source?: string; cause?: unknown }) {
    const where =
      options.server === undefined ? '' : ` for server ${JSON.stringify(options.server)}`;
    const from = options.source === undefined ? '' : ` in ${options.source}`;
    super({
      code: 'INVALID_CONFIG',
      message: `Invalid MCP configuration${where}${from}: ${options.reason}. Fix the entry (see the "Using MCP servers" guide) or remove it`,
      cause: options.cause,
    });
    this.server = options.server;
  }
}

/** Thrown when a remote MCP server's URL is refused: not https (loopback excepted) or unparsable. */
export class McpUrlRefusedError extends SpineError {
  /** The server whose URL was refused. */
  readonly server: string;

  constructor(options: { server: string; url: string; detail: string }) {
    super({
      code: 'URL_REFUSED',
      message: `Refused to connect to MCP server ${JSON.stringify(options.server)} at ${options.url}: ${options.detail}. Use an https:// URL (http:// only for 127.0.0.1, ::1 or localhost)`,
    });
    this.server = options.server;
  }
}

/** Thrown when an MCP server cannot be started or connected to (spawn failure, crash, timeout). */
export class McpServerUnavailableError extends SpineError {
  /** The server that is unavailable. */
  readonly server: string;
  /** A short machine-friendly reason: `start-failed`, `start-timeout`, `crashed`, `closed`. */
  readonly reason: string;

  constructor(options: { server: string; reason: string; detail: string; cause?: unknown }) {
    super({
      code: 'PROVIDER_UNAVAILABLE',
      message: `MCP server ${JSON.stringify(options.server)} is unavailable (${options.reason}): ${options.detail}. Check its command or URL with \`spine doctor\``,
      cause: options.cause,
    });
    this.server = options.server;
    this.reason = options.reason;
  }
}

/** Thrown when `spine mcp serve --http` is asked to listen on an address that is not loopback. */
export class McpServeAddressError extends SpineError {
  /** The address that was refused. */
  readonly host: string;

  constructor(options: { host: string }) {
    super({
      code: 'INVALID_CONFIG',
      message: `Refused to serve MCP over HTTP on ${JSON.stringify(options.host)}: only loopback (127.0.0.1 or ::1) is allowed, since the tools run commands and write files. Use 127.0.0.1 and reach it through an SSH tunnel if you need it elsewhere`,
    });
    this.host = options.host;
  }
}

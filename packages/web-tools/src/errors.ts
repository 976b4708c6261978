import { SpineError } from '@spine/protocol';

/**
 * Thrown when a URL or a resolved address breaks the fetch policy. Always thrown before any
 * connection to the refused target is attempted.
 */
export class UrlRefusedError extends SpineError {
  /** The URL (or hop) that was refused. */
  readonly url: string;
  /** A short machine-friendly reason, for example `private` or `scheme`. */
  readonly reason: string;
  /** What exactly was wrong, without the advice. */
  readonly detail: string;

  constructor(options: { url: string; reason: string; detail: string }) {
    super({
      code: 'URL_REFUSED',
      message: `Refused to fetch ${options.url}: ${options.detail}. Only public https:// URLs can be fetched; ask for a different URL`,
    });
    this.url = options.url;
    this.reason = options.reason;
    this.detail = options.detail;
  }
}

/** Thrown when a fetch or a search request fails after the URL was accepted (network, timeout, HTTP, body). */
export class FetchFailedError extends SpineError {
  /** The URL or endpoint involved. */
  readonly url: string;
  /** A short machine-friendly reason, for example `timeout`, `http-status`, `content-type`. */
  readonly reason: string;
  /** HTTP status, when a response arrived. */
  readonly status: number | undefined;

  constructor(options: {
    url: string;
    reason: string;
    detail: string;
    status?: number;
    cause?: unknown;
  }) {
    super({
      code: 'FETCH_FAILED',
      message: `${options.detail} (${options.url})`,
      cause: options.cause,
    });
    this.url = options.url;
    this.reason = options.reason;
    this.status = options.status;
  }
}

/** Thrown when no usable provider can be selected, or the configured one is unavailable. */
export class ProviderUnavailableError extends SpineError {
  /** `search` or `fetch`. */
  readonly kind: 'search' | 'fetch';

  constructor(options: { kind: 'search' | 'fetch'; detail: string }) {
    super({ code: 'PROVIDER_UNAVAILABLE', message: options.detail });
    this.kind = options.kind;
  }
}

/** Thrown when several providers of one kind are available and none is configured. */
export class ProviderAmbiguousError extends SpineError {
  /** `search` or `fetch`. */
  readonly kind: 'search' | 'fetch';
  /** The available provider ids, sorted. */
  readonly candidates: readonly string[];

  constructor(options: { kind: 'search' | 'fetch'; candidates: readonly string[] }) {
    const sorted = [...options.candidates].sort();
    super({
      code: 'PROVIDER_AMBIGUOUS',
      message: `Several ${options.kind} providers are available (${sorted.join(', ')}); pick one with { ${options.kind}: '<id>' } in the web configuration`,
    });
    this.kind = options.kind;
    this.candidates = sorted;
  }
}

/** Thrown when web-tools options are invalid (bad CIDR, unknown provider id, unsafe test seam …). */
export class WebConfigError extends SpineError {
  constructor(options: { detail: string; cause?: unknown }) {
    super({ code: 'INVALID_CONFIG', message: options.detail, cause: options.cause });
  }
}

import { SpineError } from './errors.js';
/** A classified model request failure. The agent loop decides on retry from `code` and `retryable`. */
export class ModelError extends SpineError {
    /** Provider name. */
    provider;
    /** HTTP status, when there was one. */
    status;
    /** Whether a retry may succeed. */
    retryable;
    /** Server-requested delay in ms. */
    retryAfterMs;
    /** Provider request id. */
    requestId;
    constructor(options) {
        super({ code: options.code, message: options.message, cause: options.cause });
        this.provider = options.provider;
        this.status = options.status;
        this.retryable = options.retryable;
        this.retryAfterMs = options.retryAfterMs;
        this.requestId = options.requestId;
    }
}
//# sourceMappingURL=model-client.js.map
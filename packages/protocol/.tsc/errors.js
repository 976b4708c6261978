const BRAND = Symbol.for('spine.error');
/**
 * Base class of every error a Spine package throws. Carries a stable `code` and a brand so
 * {@link SpineError.isInstance} works across duplicate installs of this package.
 *
 * @example
 * ```ts
 * try { session.append('bogus/type', {}); }
 * catch (error) { if (SpineError.isInstance(error)) console.log(error.code); }
 * ```
 */
export class SpineError extends Error {
    /** The stable code, for programs. */
    code;
    /** Brand checked by {@link SpineError.isInstance}. */
    [BRAND] = true;
    constructor(options) {
        super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
        this.code = options.code;
        this.name = new.target.name;
    }
    /** True when `value` is a SpineError from any copy of this package. */
    static isInstance(value) {
        return (typeof value === 'object' &&
            value !== null &&
            value[BRAND] === true);
    }
}
/** Thrown when an interface reports a `specificationVersion` this consumer does not know. */
export class UnsupportedSpecificationError extends SpineError {
    constructor(options) {
        super({
            code: 'UNSUPPORTED_SPECIFICATION',
            message: `${options.interfaceName} has specificationVersion ${String(options.version)}, but this consumer supports only 1; upgrade the consumer or use a matching implementation`,
        });
    }
}
/**
 * Throws {@link UnsupportedSpecificationError} unless `implementation.specificationVersion` is 1.
 *
 * @throws {UnsupportedSpecificationError}
 */
export function assertSpecificationVersion(interfaceName, implementation) {
    if (implementation.specificationVersion !== 1) {
        throw new UnsupportedSpecificationError({
            interfaceName,
            version: implementation.specificationVersion,
        });
    }
}
//# sourceMappingURL=errors.js.map
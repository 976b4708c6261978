// Types of scripts/log-spec.mjs, for the tests that import it.
/** Where the JSON Schema document is checked in. */
export declare const SCHEMA_PATH: string;
/** The catalogue page holding the generated section. */
export declare const EVENTS_PATH: string;
/** The marker that opens the generated section. */
export declare const START: string;
/** The marker that closes the generated section. */
export declare const END: string;
/** True when the checked-in schema text says the same as `schema`. */
export declare function sameSchema(text: string, schema: unknown): boolean;
/** The markdown catalogue of a schema document. */
export declare function renderCatalogue(schema: unknown): string;
/** `page` with its generated section replaced by `section`. */
export declare function withSection(page: string, section: string): string;

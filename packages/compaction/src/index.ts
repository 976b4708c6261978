// Public API of @spine/compaction. Every export here is a semver promise.
export {};

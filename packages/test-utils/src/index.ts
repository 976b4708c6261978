// Public API of @spine/test-utils. Every export here is a semver promise.
export {};

// Public API of @spine/reference-cli. Every export here is a semver promise.
export {};

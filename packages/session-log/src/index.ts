// Public API of @spine/session-log. Every export here is a semver promise.
export {};

// Public API of @spine/web-tools. Every export here is a semver promise.
export {};

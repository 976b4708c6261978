// Public API of @spine/tool-runtime. Every export here is a semver promise.
export {};

// Public API of @spine/llm. Every export here is a semver promise.
export {};

// Public API of @spine/agent-loop. Every export here is a semver promise.
export {};

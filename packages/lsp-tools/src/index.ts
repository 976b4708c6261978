// Public API of @spine/lsp-tools. Every export here is a semver promise.
export {};

export {};
//# sourceMappingURL=session-store.js.map
